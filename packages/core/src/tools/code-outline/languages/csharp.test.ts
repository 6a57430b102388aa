import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { csharp } from "./csharp.js";

const source = `using System;

namespace Example.Web
{
    /// <summary>A server.</summary>
    [Serializable]
    public class Server : IDisposable
    {
        private readonly int _port;

        public Server(int port)
        {
            _port = port;
        }

        public int Port { get; set; }

        public async Task StartAsync(CancellationToken token)
        {
            int Local() => 1;
            Func<int> f = () => 2;
        }

        public static string Shout(this string s) => s.ToUpper();

        ~Server() { }

        private class Inner
        {
            void Run() { }
        }
    }

    public interface IHandler
    {
        bool Handle(string request);
    }

    public struct Point { public int X; }

    public enum Level { Debug, Info }

    public record Person(string Name);

    public delegate void Callback(int code);
}
`;

describe("C# outline", () => {
  it("lists namespaces, classes, structs, interfaces, enums, records and delegates with constructors and methods", async () => {
    const { entries } = await outlineSource(source, csharp);
    expect(formatOutline("Server.cs", entries).split("\n").slice(1)).toEqual([
      "   3│ namespace Example.Web",
      "   7│   public class Server : IDisposable",
      "  11│     public Server(int port)",
      "  18│     public async Task StartAsync(CancellationToken token)",
      "  24│     public static string Shout(this string s)",
      "  26│     ~Server()",
      "  28│     private class Inner",
      "  30│       void Run()",
      "  34│   public interface IHandler",
      "  36│     bool Handle(string request)",
      "  39│   public struct Point",
      "  41│   public enum Level",
      "  43│   public record Person(string Name)",
      "  45│   public delegate void Callback(int code)",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("Local");
  });

  it("shows a file-scoped namespace at the top, followed by the file's types", async () => {
    const scoped = "namespace Example.Scoped;\n\npublic static class Extensions\n{\n    public static int Twice(int x) => x * 2;\n}\n";
    const { entries } = await outlineSource(scoped, csharp);
    expect(formatOutline("Extensions.cs", entries).split("\n").slice(1)).toEqual([
      "  1│ namespace Example.Scoped",
      "  3│ public static class Extensions",
      "  5│   public static int Twice(int x)",
    ]);
  });
});
