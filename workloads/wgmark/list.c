/* Linked-list kernel: the list lives in a fixed pool, so an iteration never
 * allocates. Each iteration searches for keys (reversing the list on every
 * hit), sorts by a variant-dependent key, checksums, and sorts back by index,
 * which restores the original order for the next iteration. */
#include <stddef.h>

#include "wgmark.h"

#define LIST_NODES 256
#define LIST_FINDS 48

struct node {
  struct node* next;
  int16_t value;
  int16_t index;
};

static struct node pool[LIST_NODES];
static struct node* head;

void list_init(uint32_t seed) {
  uint32_t rng = seed | 1u;
  for (int i = 0; i < LIST_NODES; ++i) {
    pool[i].value = (int16_t)(wgmark_rand(&rng) & 0x7fff);
    pool[i].index = (int16_t)i;
    pool[i].next = (i + 1 < LIST_NODES) ? &pool[i + 1] : NULL;
  }
  head = &pool[0];
}

static struct node* list_find(struct node* n, int16_t low_bits) {
  while (n != NULL && (n->value & 0xff) != low_bits) n = n->next;
  return n;
}

static struct node* list_reverse(struct node* n) {
  struct node* prev = NULL;
  while (n != NULL) {
    struct node* next = n->next;
    n->next = prev;
    prev = n;
    n = next;
  }
  return prev;
}

/* Sort key: by index (mode < 0) or by value mixed with the variant. */
static int key_of(const struct node* n, int mode) {
  return mode < 0 ? n->index : ((n->value ^ (mode * 0x2d5)) & 0x7fff);
}

/* Bottom-up merge sort, stable, O(n log n), no recursion. */
static struct node* list_sort(struct node* list, int mode) {
  for (int width = 1;; width *= 2) {
    struct node* p = list;
    struct node* tail = NULL;
    int merges = 0;
    list = NULL;
    while (p != NULL) {
      struct node* q = p;
      int psize = 0;
      ++merges;
      for (int i = 0; i < width && q != NULL; ++i) {
        ++psize;
        q = q->next;
      }
      int qsize = width;
      while (psize > 0 || (qsize > 0 && q != NULL)) {
        struct node* e;
        if (psize == 0) {
          e = q, q = q->next, --qsize;
        } else if (qsize == 0 || q == NULL || key_of(p, mode) <= key_of(q, mode)) {
          e = p, p = p->next, --psize;
        } else {
          e = q, q = q->next, --qsize;
        }
        if (tail != NULL) {
          tail->next = e;
        } else {
          list = e;
        }
        tail = e;
      }
      p = q;
    }
    tail->next = NULL;
    if (merges <= 1) return list;
  }
}

uint16_t list_bench(int variant) {
  uint16_t crc = 0;
  int found = 0;
  int missed = 0;
  for (int i = 0; i < LIST_FINDS; ++i) {
    int16_t key = (int16_t)((variant * 37 + i * 11) & 0xff);
    struct node* hit = list_find(head, key);
    if (hit != NULL) {
      ++found;
      crc = crc16_u16((uint16_t)hit->index, crc);
      head = list_reverse(head);
    } else {
      ++missed;
    }
  }
  head = list_sort(head, variant);
  for (struct node* n = head; n != NULL; n = n->next) crc = crc16_u16((uint16_t)n->value, crc);
  head = list_sort(head, -1);
  crc = crc16_u16((uint16_t)found, crc);
  return crc16_u16((uint16_t)missed, crc);
}
