import { existsSync, mkdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { writeFileAtomicSync } from "../disk/atomic-write.js";
import { isPlainObject } from "./config.js";

/** An MCP tool as the hub keeps it. */
export type McpToolInfo = { name: string; description: string; inputSchema: Record<string, unknown> };

/** What a server told us the last time it was connected. */
export type CachedServer = { hash: string; updatedAt: string; summary?: string; tools: McpToolInfo[] };

/**
 * Servers start lazily, yet the system prompt wants their tool names: the tool lists of the last
 * successful connection are kept in CAIRN_HOME/mcp_cache.json, per server and config hash, so a
 * task can name a server's tools without starting it. A stale or broken cache is only a cache.
 */
export class ToolCache {
  private entries: Record<string, CachedServer> | undefined;

  constructor(private readonly file: string) {}

  static in(home: string): ToolCache {
    return new ToolCache(path.join(home, "mcp_cache.json"));
  }

  get(key: string, hash: string): CachedServer | undefined {
    const entry = this.read()[key];
    return entry && entry.hash === hash ? entry : undefined;
  }

  put(key: string, entry: CachedServer): void {
    // Re-read first: other tasks may have stored their servers since.
    this.entries = undefined;
    const all = this.read();
    all[key] = entry;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true });
      writeFileAtomicSync(this.file, `${JSON.stringify({ version: 1, servers: all })}\n`);
    } catch {
      // A read-only home costs the prompt its tool names until the server starts; nothing more.
    }
  }

  private read(): Record<string, CachedServer> {
    this.entries ??= this.readFile();
    return this.entries;
  }

  private readFile(): Record<string, CachedServer> {
    if (!existsSync(this.file)) return {};
    try {
      const parsed: unknown = JSON.parse(readFileSync(this.file, "utf8"));
      if (!isPlainObject(parsed) || !isPlainObject(parsed.servers)) return {};
      const out: Record<string, CachedServer> = {};
      for (const [key, value] of Object.entries(parsed.servers)) {
        if (isPlainObject(value) && typeof value.hash === "string" && Array.isArray(value.tools)) out[key] = value as CachedServer;
      }
      return out;
    } catch {
      return {};
    }
  }
}
