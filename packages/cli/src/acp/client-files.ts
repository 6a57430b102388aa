import type { AgentContext, ClientCapabilities } from "@agentclientprotocol/sdk";
import type { TextFiles } from "@cairn/core";

/**
 * The editor's buffers as the task's files, when the editor offers both halves: reading through
 * it shows the model unsaved edits, writing through it puts the change in the editor (with its
 * undo). An editor that offers only one half gets neither, so a file is never read from one place
 * and written to another.
 */
export function clientFiles(capabilities: ClientCapabilities | undefined, client: AgentContext, sessionId: () => string): TextFiles | undefined {
  if (capabilities?.fs?.readTextFile !== true || capabilities.fs.writeTextFile !== true) return undefined;
  return {
    readText: async (path) => (await client.request("fs/read_text_file", { sessionId: sessionId(), path })).content,
    writeText: async (path, text) => {
      await client.request("fs/write_text_file", { sessionId: sessionId(), path, content: text });
    },
  };
}
