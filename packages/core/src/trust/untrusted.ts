/** A workspace file that can run code, left inert because the person has not trusted its content. */
export type UntrustedConfig = {
  /** The file, absolute. */
  file: string;
  /** The workspace's real path. */
  workspace: string;
  /** What was not loaded from it, as the notice names it. */
  what: "hooks" | "settings" | "MCP servers" | "agent definitions";
  /** The person trusted an earlier version: the content changed since. */
  changed: boolean;
};

/**
 * The one line a host shows when it skips untrusted config (the CLI prefixes "cairn: "):
 * "ignoring hooks in /ws/.cairn/settings.json (this workspace's config is not trusted; run
 * `cairn trust --cwd /ws` to review and use it)".
 */
export function untrustedNotice(config: UntrustedConfig): string {
  const why = config.changed ? "it changed since you trusted it" : "this workspace's config is not trusted";
  return `ignoring ${config.what} in ${config.file} (${why}; run \`cairn trust --cwd ${shellWord(config.workspace)}\` to review and use it)`;
}

function shellWord(text: string): string {
  return /^[\w./-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}
