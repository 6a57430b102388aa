import { builtinSlashCommands, listWorkflows } from "@cairn/core";
import { completionsAt, FileIndex, type Completion } from "@cairn/host/completion";

type Command = { name: string; args: string; description: string };

/** How long a workspace's file list is reused before it is listed again (files come and go). */
const staleAfterMs = 10_000;

/**
 * Completions for the page's task box: `/` the commands a task understands (compact, newtask,
 * newrule, the workspace's workflows), `@` the workspace's files and folders (without what
 * .cairnignore hides), as the terminal UI offers them.
 */
export class Completions {
  private indexes = new Map<string, { index: FileIndex; at: number }>();

  constructor(private readonly home: string) {}

  async at(cwd: string, text: string, cursor: number): Promise<Completion | undefined> {
    // The page asks on every keystroke: the workflows' folders are read only while a command is typed.
    const commands: Command[] = /^\/\S*$/.test(text.slice(0, cursor))
      ? [
          ...Object.entries(builtinSlashCommands).map(([name, description]) => ({ name, args: name === "compact" || name === "smol" ? "[then…]" : "[what]", description })),
          ...listWorkflows(cwd, this.home).map((w) => ({ name: w.name, args: "[arguments]", description: w.description ?? `workflow (${w.file})` })),
        ]
      : [];
    let files: FileIndex | undefined;
    if (/(^|[\s([{"'])@"?[^\s"]*$/.test(text.slice(0, cursor))) {
      let cached = this.indexes.get(cwd);
      if (!cached || Date.now() - cached.at > staleAfterMs) {
        cached = { index: new FileIndex(cwd), at: Date.now() };
        this.indexes.set(cwd, cached);
      }
      await cached.index.load();
      files = cached.index;
    }
    return completionsAt(text, cursor, commands, files);
  }
}
