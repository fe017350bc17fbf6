# Write the bytes of IN as the C array fe_case_schema into OUT.
file(READ ${IN} hex HEX)
string(LENGTH "${hex}" n)
math(EXPR bytes "${n} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," body "${hex}")
file(WRITE ${OUT} "/* generated from ${IN} */\nconst char fe_case_schema[] = {${body}0x00};\nconst unsigned long fe_case_schema_size = ${bytes};\n")
