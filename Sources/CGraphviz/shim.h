#ifndef MARBLES_CGRAPHVIZ_SHIM_H
#define MARBLES_CGRAPHVIZ_SHIM_H

#include <stdlib.h>
#include <graphviz/gvc.h>

/* Graphviz 2.42 takes `char *` where it only reads; these wrappers take `const char *` so
   Swift strings pass without copies or casts at every call. */

/* Object IDs in order of creation. Graphviz's default discipline uses the address of the
   interned name as the ID, and 2.4x orders subgraphs (clusters) by ID, so the same graph
   could come out in a different order run to run. Declining to map names makes cgraph keep
   them in its internal map and ask for sequential anonymous IDs instead. */
typedef struct {
    IDTYPE next;
} cgv_id_state;

static inline void *cgv_id_open(Agraph_t *g, Agdisc_t *disc) {
    (void)g;
    (void)disc;
    cgv_id_state *state = malloc(sizeof(cgv_id_state));
    if (state) state->next = 1;
    return state;
}

static inline long cgv_id_map(void *state, int objtype, char *str, IDTYPE *id, int createflag) {
    (void)objtype;
    (void)createflag;
    if (str) return 0;
    cgv_id_state *ids = state;
    *id = ids->next;
    ids->next += 2;
    return 1;
}

static inline long cgv_id_alloc(void *state, int objtype, IDTYPE id) {
    (void)state; (void)objtype; (void)id;
    return 0;
}

static inline void cgv_id_free(void *state, int objtype, IDTYPE id) {
    (void)state; (void)objtype; (void)id;
}

static inline char *cgv_id_print(void *state, int objtype, IDTYPE id) {
    (void)state; (void)objtype; (void)id;
    return NULL;
}

static inline void cgv_id_close(void *state) {
    free(state);
}

static inline void cgv_id_register(void *state, int objtype, void *obj) {
    (void)state; (void)objtype; (void)obj;
}

static Agiddisc_t cgv_id_discipline = {
    cgv_id_open, cgv_id_map, cgv_id_alloc, cgv_id_free, cgv_id_print, cgv_id_close, cgv_id_register
};

static Agdisc_t cgv_discipline = { &AgMemDisc, &cgv_id_discipline, &AgIoDisc };

static inline Agraph_t *cgv_open_digraph(const char *name) {
    return agopen((char *)name, Agdirected, &cgv_discipline);
}

static inline Agraph_t *cgv_subgraph(Agraph_t *g, const char *name) {
    return agsubg(g, (char *)name, 1);
}

static inline Agnode_t *cgv_node(Agraph_t *g, const char *name) {
    return agnode(g, (char *)name, 1);
}

static inline Agnode_t *cgv_subgraph_node(Agraph_t *sub, Agnode_t *n) {
    return agsubnode(sub, n, 1);
}

static inline Agedge_t *cgv_edge(Agraph_t *g, Agnode_t *tail, Agnode_t *head, const char *name) {
    return agedge(g, tail, head, (char *)name, 1);
}

static inline int cgv_set(void *obj, const char *name, const char *value) {
    return agsafeset(obj, (char *)name, (char *)value, (char *)"");
}


/* An HTML-like label (`<...>` in DOT): the string is interned as HTML before it is stored,
   which is how cgraph tells it from a plain string. */
static inline int cgv_set_html(void *obj, const char *name, const char *value) {
    Agraph_t *g = agraphof(obj);
    char *html = agstrdup_html(g, (char *)value);
    int result = agsafeset(obj, (char *)name, html, (char *)"");
    agstrfree(g, html);
    return result;
}

static inline int cgv_layout(GVC_t *gvc, Agraph_t *g, const char *engine) {
    return gvLayout(gvc, g, engine);
}

static inline int cgv_render(GVC_t *gvc, Agraph_t *g, const char *format, char **result, unsigned int *length) {
    return gvRenderData(gvc, g, format, result, length);
}

static inline Agraph_t *cgv_read(const char *text) {
    return agmemread(text);
}

static inline Agnode_t *cgv_find_node(Agraph_t *g, const char *name) {
    return agnode(g, (char *)name, 0);
}

/* The laid-out graph's bounding box, in points: its width and height. */
static inline void cgv_size(Agraph_t *g, double *width, double *height) {
    boxf bb = GD_bb(g);
    *width = bb.UR.x - bb.LL.x;
    *height = bb.UR.y - bb.LL.y;
}

static inline char *cgv_get(void *obj, const char *name) {
    return agget(obj, (char *)name);
}

#endif
