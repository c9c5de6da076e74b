/* eval_scope.c: local names (eval.h, Scope).
 *
 * The chain stays persistent (bindings are never changed or removed, a
 * copy of an Eval extends it without the original seeing), which the
 * evaluator relies on.  A lookup used to walk every binding back to the
 * kernel's start, so a function of n `let`s cost O(n^2) (20,000 lets: 14
 * s).  Now a frame that reaches SCOPE_INDEX_MIN bindings gets a hash
 * index of them; the index covers one chain of the frame (the first one
 * that grew that long, then every binding that extends its newest node).
 * A binding made off that chain (by a copy of the Eval that is no longer
 * the newest) is found by the walk, as before, until the walk reaches a
 * node of the chain. */
#include <string.h>

#include "arena.h"
#include "eval.h"

enum { SCOPE_INDEX_MIN = 8 };

struct ScopeIndex {
    Scope **slots; /* open addressing: the newest indexed binding of each name */
    unsigned cap;  /* a power of two, at least twice count */
    unsigned count;
    Scope *top; /* the newest binding the index covers */
};

static unsigned name_hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static Scope **index_slot(ScopeIndex *ix, const char *name)
{
    unsigned mask = ix->cap - 1;
    for (unsigned i = name_hash(name) & mask;; i = (i + 1) & mask)
        if (!ix->slots[i] || strcmp(ix->slots[i]->name, name) == 0) return &ix->slots[i];
}

static void index_add(Arena *a, ScopeIndex *ix, Scope *s)
{
    if (2 * (ix->count + 1) > ix->cap) {
        Scope **old = ix->slots;
        unsigned oldcap = ix->cap;
        ix->cap = oldcap ? oldcap * 2 : 32;
        ix->slots = ARENA_ARRAY(a, Scope *, ix->cap);
        for (unsigned i = 0; i < oldcap; i++)
            if (old[i]) *index_slot(ix, old[i]->name) = old[i];
    }
    Scope **slot = index_slot(ix, s->name);
    if (*slot)
        s->shadow = *slot;
    else
        ix->count++;
    *slot = s;
    s->indexed = true;
    ix->top = s;
}

/* The frame's first SCOPE_INDEX_MIN bindings, the chain ending at s, into
 * a new index, oldest first (so that shadows point at older ones). */
static void index_build(Arena *a, Scope *frame, Scope *s)
{
    ScopeIndex *ix = ARENA_NEW(a, ScopeIndex);
    Scope *chain[SCOPE_INDEX_MIN];
    for (Scope *b = s; b != frame; b = b->parent) chain[b->seq - 1] = b;
    for (unsigned i = 0; i < s->seq; i++) index_add(a, ix, chain[i]);
    frame->index = ix;
}

void scope_push(Eval *e)
{
    Scope *s = ARENA_NEW(e->arena, Scope);
    s->parent = e->scope;
    s->name = NULL; /* a frame marker */
    e->scope = s;
}

void scope_pop(Eval *e)
{
    Scope *s = e->scope;
    if (s && s->name) s = s->frame; /* the frame's marker, or NULL outside any */
    e->scope = s ? s->parent : NULL;
}

void scope_bind(Eval *e, const char *name, Value v)
{
    Scope *s = ARENA_NEW(e->arena, Scope), *p = e->scope;
    s->parent = p;
    s->name = name;
    s->value = v;
    s->frame = !p ? NULL : p->name ? p->frame : p;
    s->seq = p && p->name ? p->seq + 1 : 1;
    e->scope = s;
    if (!s->frame) return;
    ScopeIndex *ix = s->frame->index;
    if (ix) {
        if (ix->top == p) index_add(e->arena, ix, s);
    } else if (s->seq == SCOPE_INDEX_MIN) {
        index_build(e->arena, s->frame, s);
    }
}

bool scope_lookup(Eval *e, const char *name, Value *out)
{
    for (Scope *s = e->scope; s;) {
        if (!s->name) {
            s = s->parent;
        } else if (s->indexed) {
            /* s and everything before it in its frame are indexed */
            Scope *hit = *index_slot(s->frame->index, name);
            while (hit && hit->seq > s->seq) hit = hit->shadow; /* bound after s, by another chain */
            if (hit) {
                *out = hit->value;
                return true;
            }
            s = s->frame->parent;
        } else if (strcmp(s->name, name) == 0) {
            *out = s->value;
            return true;
        } else {
            s = s->parent;
        }
    }
    return false;
}
