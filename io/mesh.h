/* Unstructured P1 simplex meshes read through the Gmsh C API.
 *
 * A mesh is triangles (dim 2) or tetrahedra (dim 3), with the facets
 * (segments / triangles) that belong to physical groups, so that boundary
 * conditions can be attached to them, and the physical region of each cell. */
#ifndef FE_MESH_H
#define FE_MESH_H

#include <stddef.h>
#include <string.h>
#include <strings.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FE_MAX_DIM 3
#define FE_MAX_NV 4 /* vertices of a cell: dim + 1 */

struct fe_physical {
  int dim;    /* dim of the mesh entities in the group: mesh dim or dim - 1 */
  int tag;    /* Gmsh physical tag (number) */
  char *name; /* Gmsh physical name, "" when the group has none */
};

/* A periodic link of the mesh (Gmsh's `Periodic` of a .geo, a link of a .msh's $Periodic):
 * the nodes of the slave entity are copies of those of the master entity. */
struct fe_periodic_link {
  int dim;   /* of the entities: a curve (2D) or surface (3D) and those on its boundary */
  int slave; /* Gmsh entity tags */
  int master;
};

struct fe_mesh {
  char *path; /* the file it was read from, for messages (cut when long: fe_path_shown) */
  int dim;    /* 2 or 3 */
  int nv;     /* vertices per cell: dim + 1 */
  int n_nodes;
  int n_cells;
  double *coords;   /* n_nodes * dim, node-major: x0 y0 [z0] x1 ... */
  size_t *node_id;  /* n_nodes: Gmsh node tag (velocity $NodeData); NULL for meshes built in
                       memory */
  int *cells;       /* n_cells * nv node indices, 0-based */
  int *cell_region; /* n_cells: physical tag of the cell, 0 when none */
  size_t *cell_id;  /* n_cells: Gmsh element tag, for messages */
  int n_facets;     /* facets of physical groups, once per group they belong to */
  int *facets;      /* n_facets * dim node indices */
  int *facet_group; /* n_facets: physical tag */
  size_t *facet_id; /* n_facets: Gmsh element tag, for messages; NULL for meshes built in memory */
  unsigned char *facet_cells; /* n_facets: the cells that have the facet: 1 on the boundary of
                                 the domain, 2 inside it, 0 none; NULL (built in memory): all 1 */
  int n_groups;
  struct fe_physical *groups;
  /* Periodic boundaries: the nodes of Gmsh's slave entities (Fluidity's aliased boundary) are
   * copies of nodes of the master entities (its physical boundary).  They come last: node
   * n_nodes - n_aliased + k is a copy of alias_of[k] < n_nodes - n_aliased, which holds the
   * unknown of both (fe_mesh_owner).  A copy keeps its own coordinates.  0 and NULL: none. */
  int n_aliased;
  int *alias_of;
  int n_links;
  struct fe_periodic_link *links;
  int *facet_link; /* n_facets, NULL without links: 1 + the link whose slave or master entity
                      holds the facet, 0 for none */
  /* A part of a mesh on several processes (fe_partition_mesh, io/partition.h): the cells at
   * the nodes this process owns, and their nodes, the owned first, then n_ghost, which other
   * processes own (grouped by owner: those of neighbours[k] at n_nodes - n_aliased - n_ghost +
   * recv_ptr[k] ..), then a periodic mesh's aliased copies; to neighbours[k] go the owned nodes
   * send[send_ptr[k] ..].  A sum over the cells at a node is complete at the owned nodes (and
   * their copies) only.  0 and NULL: the whole mesh. */
  int n_ghost;
  int *global_node;  /* n_nodes: the node's index in the whole mesh */
  int *global_cell;  /* n_cells: the cell's (ascending) */
  int *global_facet; /* n_facets: the facet's */
  int n_neighbours;
  int *neighbours, *send_ptr, *send, *recv_ptr;
  /* fe_mesh_read's seconds in the confined reader (Gmsh's parse or meshing, and the mesh's
   * transfer); the rest of its time is fesim's numbering and checks.  0 for other meshes. */
  double reader_seconds;
};

/* The nodes that hold unknowns: all but the aliased copies (a part's owned nodes and ghosts). */
static inline int fe_mesh_n_unknowns(const struct fe_mesh *m) { return m->n_nodes - m->n_aliased; }

/* The unknowns this process owns: a part's ghosts left out too (all on one process). */
static inline int fe_mesh_n_owned(const struct fe_mesh *m)
{
  return m->n_nodes - m->n_aliased - m->n_ghost;
}

/* The node that holds node n's unknown: n, or the node an aliased node is a copy of. */
static inline int fe_mesh_owner(const struct fe_mesh *m, int n)
{
  const int unknowns = fe_mesh_n_unknowns(m);
  return n < unknowns ? n : m->alias_of[n - unknowns];
}

struct fe_mesh_options {
  double size; /* mesh@size: largest element size of a .geo, <= 0: the script's own */
  const char
      *read_dir;     /* the folder a .geo may read besides itself (the case file's); NULL: none */
  double time_limit; /* seconds for reading or meshing (--mesh-time-limit), <= 0: the default */
  long max_cells;    /* --max-cells, <= 0: the default, and the memory available limits too */
  int verbosity;     /* 0 quiet, 1 progress of long meshing on a terminal, 2 every stage */
};

/* Read a .msh (2.2 or 4.1, ASCII or binary) or mesh a .geo (o NULL: the
 * defaults).  Gmsh runs in a separate, confined process (io/mesher.h); a
 * .geo is checked first (io/geo_check.h).  Nodes are renumbered by reverse
 * Cuthill-McKee for locality; only nodes used by cells are kept.  Cells are
 * reordered to positive orientation: the vertex order in the file does not
 * matter.  Errors (exit code 2) name the file and, for bad elements, the Gmsh
 * element or node tag: missing, empty, truncated or unreadable file, no 2D/3D
 * cells, cells other than linear triangles or tetrahedra, mixed dimensions,
 * nodes off the plane of a 2D mesh or not finite, degenerate (zero-measure)
 * cells, inverted cells: a cell on the same side of a facet as the cell
 * across it (the two overlap; the smaller of the classes such folds separate
 * is reported, with its entity and size), or a facet shared by three cells;
 * a node tag given twice at different coordinates (both named), or where the
 * copies cannot be compared (a binary file); separate pieces of the mesh
 * (cells connected through facets) that overlap, one cell of each named.
 * Warnings (fesim: warning:, the mesh is kept): a node tag given twice at the
 * same coordinates (one node), a physical name given to several groups of
 * one dimension (usable by number; fe_bcs_create refuses the name), pieces
 * that touch along coincident facets with nodes of their own.  facet_cells
 * tells which facets of the groups lie inside the domain or on no cell, for
 * fe_bcs_create to decide (app/fields.h).  Periodic links (io/mesh_periodic.h) make the
 * copies of each unknown (n_aliased, alias_of), checked: every node of a slave entity paired,
 * as many nodes on both sides, no node its own master, each slave where its transform takes
 * its master (and placed there exactly), no cell with two copies of one node, a $Periodic
 * section only in MSH 4 and ASCII MSH 2. */
int fe_mesh_read(const char *path, const struct fe_mesh_options *o, struct fe_mesh **mesh);
void fe_mesh_destroy(struct fe_mesh *mesh);

/* The cell entries (cell * nv + local vertex) at each node, in CSR form (ptr: n_nodes + 1
 * offsets), ascending in cell: the node -> cell incidence of the space and of host checks. */
int fe_mesh_incidence(const struct fe_mesh *mesh, int **ptr, int **inc);
/* The same at the first node of each facet of the groups (m->facets), none at the other nodes:
 * what fe_mesh_facet_opposite reads, made in a pass over the cells and a sort of those entries. */
int fe_mesh_facet_incidence(const struct fe_mesh *mesh, int **ptr, int **inc);

/* Periodic meshes: the list of each node in the CSR (*ptr, *items), ascending, replaced by the
 * union of the lists of the copies of its unknown (its owner and the owner's aliased nodes),
 * ascending, so that every copy has the same list: a loop over a node's incident cells then
 * covers the cells around every copy (the sums of PᵀAP, docs/numerics.md).  Unchanged without
 * aliased nodes.  The lists' items must be distinct across copies (fe_mesh_read refuses a cell
 * with two copies of one node). */
int fe_mesh_merge_copies(const struct fe_mesh *mesh, int **ptr, int **items);

/* "(0.5, 1)" or "(0.5, 1, 0)": a point of a mesh of dimension dim, for messages. */
const char *fe_mesh_point_text(int dim, const double *x, char *buf, size_t size);

/* The copies of periodic unknowns take their owners' values: ncomp values per node (host). */
void fe_mesh_copy_owners(const struct fe_mesh *mesh, int ncomp, double *values);

/* The vertex across from facet f (its dim node indices) of the first cell, in the incidence
 * ptr/inc of fe_mesh_incidence (or at f's first node, fe_mesh_facet_incidence), that has f; -1
 * when no cell has it. */
int fe_mesh_facet_opposite(const struct fe_mesh *m, const int *ptr, const int *inc, const int *f);

/* 1 when `path` names a Gmsh geometry script (.geo, any case), which is run
 * and meshed, rather than a mesh (.msh). */
static inline int fe_mesh_is_geo(const char *path)
{
  const char *dot = strrchr(path, '.');
  return dot && !strchr(dot, '/') && !strcasecmp(dot, ".geo");
}

/* Physical group of dimension dim by name or, when `ref` is a number, by tag.
 * Returns NULL when absent; the first of them when several groups have the
 * name (fe_mesh_groups_named tells). */
const struct fe_physical *fe_mesh_find_group(const struct fe_mesh *mesh, int dim, const char *ref);

/* How many physical groups of dimension dim are named `name` (not ""); the
 * first `max` of them in found[]. */
int fe_mesh_groups_named(const struct fe_mesh *mesh, int dim, const char *name,
                         const struct fe_physical **found, int max);

#ifdef __cplusplus
}
#endif

#endif
