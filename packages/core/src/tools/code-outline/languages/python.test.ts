import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { python } from "./python.js";

const source = `"""A small service."""
from dataclasses import dataclass


@dataclass
class Config:
    port: int = 8080

    def url(self) -> str:
        return f"http://localhost:{self.port}"


class Server(Base, metaclass=Meta):
    """Serves requests."""

    def __init__(self, config: Config) -> None:
        self.config = config

    @property
    def port(self) -> int:
        return self.config.port

    async def start(self):
        def on_ready():
            pass
        on_ready()

    class Handler:
        def handle(self, request): ...


def create_server(config: Config = Config()) -> Server:
    return Server(config)


async def main(): pass

if __name__ == "__main__":
    def only_when_run():
        pass
`;

describe("Python outline", () => {
  it("lists classes, methods (decorated too) and functions without the colon; nested functions are left out", async () => {
    const { entries } = await outlineSource(source, python);
    expect(formatOutline("app.py", entries).split("\n")).toEqual([
      "app.py",
      "   6│ class Config",
      "   9│   def url(self) -> str",
      "  13│ class Server(Base, metaclass=Meta)",
      "  16│   def __init__(self, config: Config) -> None",
      "  20│   def port(self) -> int",
      "  23│   async def start(self)",
      "  28│   class Handler",
      "  29│     def handle(self, request)",
      "  32│ def create_server(config: Config = Config()) -> Server",
      "  36│ async def main()",
      "  39│ def only_when_run()",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("on_ready");
    expect(entries.find((e) => e.name === "url")?.kind).toBe("method");
    expect(entries.find((e) => e.name === "create_server")?.kind).toBe("function");
  });
});
