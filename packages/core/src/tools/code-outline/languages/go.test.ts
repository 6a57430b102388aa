import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { go } from "./go.js";

const source = `package server

import "net/http"

// Store keeps values.
type Store interface {
	Get(key string) (string, error)
	Put(key, value string) error
}

type Server struct {
	addr  string
	store Store
}

type (
	Handler func(w http.ResponseWriter, r *http.Request)
	ID      int64
)

type Pair[K comparable, V any] struct{ Key K; Value V }

type Alias = Server

func NewServer(addr string, store Store) *Server {
	helper := func() {}
	helper()
	return &Server{addr: addr, store: store}
}

func (s *Server) Start(port int) error {
	return nil
}

func Map[T, U any](xs []T, f func(T) U) []U { return nil }

var handler = func() {
	type local struct{}
}

const Version = "1.0"
var defaultServer = NewServer(":80", nil)
`;

describe("Go outline", () => {
  it("lists types (structs, interfaces with their methods, grouped specs, aliases), functions and methods", async () => {
    const { entries } = await outlineSource(source, go);
    expect(formatOutline("server.go", entries).split("\n").slice(1)).toEqual([
      "   6│ type Store interface",
      "   7│   Get(key string) (string, error)",
      "   8│   Put(key, value string) error",
      "  11│ type Server struct",
      "  17│ Handler func(w http.ResponseWriter, r *http.Request)",
      "  18│ ID int64",
      "  21│ type Pair[K comparable, V any] struct",
      "  23│ type Alias = Server",
      "  25│ func NewServer(addr string, store Store) *Server",
      "  31│ func (s *Server) Start(port int) error",
      "  35│ func Map[T, U any](xs []T, f func(T) U) []U",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("local");
    expect(entries.map((e) => e.kind)).toEqual([
      "interface",
      "method",
      "method",
      "struct",
      "type",
      "type",
      "struct",
      "type",
      "function",
      "method",
      "function",
    ]);
  });
});
