/*
 * heap.c -- see heap.h.
 */
#include "core/heap.h"

#include <assert.h>

#include "core/mem.h"

int heap_init(heap *h, int cap) {
  h->n = 0;
  h->cap = 0;
  h->e = mem_alloc(sizeof *h->e * (size_t)(cap > 0 ? cap : 1));
  if (!h->e) return -1;
  h->cap = cap;
  return 0;
}

void heap_free(heap *h) {
  mem_free(h->e);
  h->e = 0;
  h->n = h->cap = 0;
}

void heap_push(heap *h, double key, int id) {
  assert(h->n < h->cap && "heap_init sized the heap too small");
  int i = h->n++;
  while (i > 0) {
    int p = (i - 1) / 2;
    if (h->e[p].key <= key) break;
    h->e[i] = h->e[p];
    i = p;
  }
  h->e[i] = (heap_ent){key, id};
}

heap_ent heap_pop(heap *h) {
  assert(h->n > 0);
  heap_ent top = h->e[0], last = h->e[--h->n];
  int i = 0;
  for (;;) {
    int c = 2 * i + 1;
    if (c >= h->n) break;
    if (c + 1 < h->n && h->e[c + 1].key < h->e[c].key) c++;
    if (h->e[c].key >= last.key) break;
    h->e[i] = h->e[c];
    i = c;
  }
  if (h->n > 0) h->e[i] = last;
  return top;
}
