import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineFile, outlineSource } from "../outline.js";
import { c } from "./c.js";

const source = `#include <stdio.h>
#include "store.h"

#define MAX_ITEMS 64
#define MAX(a, b) ((a) > (b) ? (a) : (b))

struct item {
    const char *key;
    int value;
};

typedef struct {
    struct item items[MAX_ITEMS];
    size_t count;
} store_t;

typedef int (*compare_fn)(const void *, const void *);

enum color { RED, GREEN };

union number { int i; float f; };

static int store_find(const store_t *store, const char *key);
char *store_key(store_t *store, int index);

int store_put(store_t *store, const char *key, int value)
{
    struct local { int x; };
    int helper(int);
    if (store->count >= MAX_ITEMS) return -1;
    return 0;
}

static inline char *
store_name(void) { return "store"; }

int main(int argc, char **argv) {
    return 0;
}
`;

describe("C outline", () => {
  it("lists structs, typedefs, enums, unions, function macros, prototypes and function definitions", async () => {
    const { entries } = await outlineSource(source, c);
    expect(formatOutline("store.c", entries).split("\n").slice(1)).toEqual([
      "   5│ #define MAX(a, b)",
      "   7│ struct item",
      "  12│ typedef struct … store_t",
      "  17│ typedef int (*compare_fn)(const void *, const void *)",
      "  19│ enum color",
      "  21│ union number",
      "  23│ static int store_find(const store_t *store, const char *key)",
      "  24│ char *store_key(store_t *store, int index)",
      "  26│ int store_put(store_t *store, const char *key, int value)",
      "  34│ static inline char * … store_name",
      "  37│ int main(int argc, char **argv)",
    ]);
    // a struct and a prototype inside a function body are local
    expect(entries.map((e) => e.name)).not.toContain("local");
    expect(entries.map((e) => e.name)).not.toContain("helper");
  });

  it("reads a .h header as C++, and as C when only C parses it cleanly", async () => {
    const cppHeader = "#pragma once\nnamespace net {\nclass Server {\npublic:\n  void start();\n};\n}\n";
    const asCpp = await outlineFile("server.h", cppHeader);
    expect(asCpp?.language.id).toBe("cpp");
    expect(asCpp?.entries.map((e) => [e.depth, e.signature])).toEqual([
      [0, "namespace net"],
      [1, "class Server"],
      [2, "void start()"],
    ]);

    const cHeader = "#ifndef LIST_H\n#define LIST_H\nstruct list { struct list *next; };\nint list_add(struct list *head, int value);\n#endif\n";
    expect((await outlineFile("list.h", cHeader))?.entries.map((e) => e.signature)).toEqual([
      "struct list",
      "int list_add(struct list *head, int value)",
    ]);

    // `template` is a keyword in C++ only
    const asC = await outlineFile("tpl.h", "int template(int x);\n");
    expect(asC?.language.id).toBe("c");
    expect(asC?.hasErrors).toBe(false);
    expect(asC?.entries.map((e) => e.signature)).toEqual(["int template(int x)"]);
  });
});
