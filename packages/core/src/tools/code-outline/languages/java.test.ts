import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { java } from "./java.js";

const source = `package com.example;

import java.util.List;

/** A server. */
@Deprecated
public class Server implements Runnable {
    private final int port;
    private final Runnable hook = new Runnable() { public void run() {} };

    public Server(int port) {
        this.port = port;
    }

    @Override
    public void run() {
        Runnable r = () -> {};
        Object o = new Object() {
            public String toString() { return "anon"; }
        };
    }

    public static <T> List<T> listOf(T item) { return List.of(item); }

    static class Builder {
        Builder port(int port) { return this; }
    }
}

interface Handler {
    boolean handle(String request);
    default String name() { return "handler"; }
}

enum Level {
    DEBUG, INFO {
        boolean verbose() { return true; }
    };
    boolean verbose() { return this == DEBUG; }
}

record Point(int x, int y) {
    Point {
        if (x < 0) throw new IllegalArgumentException();
    }
    int sum() { return x + y; }
}

@interface Marker {
    String value() default "";
}
`;

describe("Java outline", () => {
  it("lists classes, interfaces, enums, records and annotation types with their constructors and methods", async () => {
    const { entries } = await outlineSource(source, java);
    expect(formatOutline("Server.java", entries).split("\n").slice(1)).toEqual([
      "   7│ public class Server implements Runnable",
      "  11│   public Server(int port)",
      "  16│   public void run()",
      "  23│   public static <T> List<T> listOf(T item)",
      "  25│   static class Builder",
      "  26│     Builder port(int port)",
      "  30│ interface Handler",
      "  31│   boolean handle(String request)",
      "  32│   default String name()",
      "  35│ enum Level",
      "  39│   boolean verbose()",
      "  42│ record Point(int x, int y)",
      "  43│   Point",
      "  46│   int sum()",
      "  49│ @interface Marker",
    ]);
    // anonymous classes and enum constant bodies are not part of the type's outline
    expect(entries.map((e) => e.name)).not.toContain("toString");
    expect(entries.filter((e) => e.name === "run").map((e) => e.line)).toEqual([16]);
    expect(entries.filter((e) => e.name === "verbose")).toHaveLength(1);
  });
});
