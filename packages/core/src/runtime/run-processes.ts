import { BrowserSession, closeBrowserFor, useBrowser } from "../browser/index.js";
import type { SandboxJson } from "../events/index.js";
import { LanguageServers, type LspSettings } from "../lsp/index.js";
import type { TaskSandbox } from "../sandbox/index.js";
import { taskEnvName, Terminal } from "../terminal/index.js";
import type { ToolOptions } from "./task-options.js";

/**
 * The processes a task's runs own: the terminal its commands run in (with the background commands
 * it started), the language servers that check its edits, and the browser session. A run starts them and its end stops them, so none outlives
 * the run that started it (a resumed task starts them again if it needs them).
 */
export class RunProcesses {
  private current: Terminal;
  private servers: LanguageServers | undefined;

  constructor(
    private readonly setup: {
      scratchDir: string;
      sessionId: string;
      sandbox: TaskSandbox | undefined;
      /** The host's own command executor (a remote workspace). */
      commands: ToolOptions["commands"];
      browser: ToolOptions["browser"];
      /** The workspace's real path and settings' `lsp`, for the language servers. */
      workspace: string;
      lsp: LspSettings | undefined;
      /** The host's language servers, kept across runs: used as they are, never stopped here. */
      languageServers?: LanguageServers | undefined;
    },
  ) {
    this.current = this.newTerminal();
  }

  get terminal(): Terminal {
    return this.current;
  }

  /** The language servers of this run (started lazily, on the first file they check); none where commands run on the host's executor. */
  get languageServers(): LanguageServers | undefined {
    if (this.setup.commands) return undefined;
    return this.setup.languageServers ?? this.servers;
  }

  /** A run starts: a fresh terminal if the last run's was stopped, and the browser session with the configured viewport and Chromium. */
  begin(): void {
    if (this.current.isDisposed) this.current = this.newTerminal();
    // The files are the host's, not this machine's, when its executor runs commands: no servers then.
    if (this.servers === undefined && !this.setup.languageServers && !this.setup.commands && this.setup.lsp !== false) {
      this.servers = new LanguageServers({ workspace: this.setup.workspace, settings: this.setup.lsp, sandbox: this.setup.sandbox?.sandbox });
    }
    // The browser sees what commands see: started in their network namespace when they have one
    // (not where the host's executor runs them elsewhere).
    const network = this.setup.commands ? undefined : this.setup.sandbox?.sandbox?.browserNetwork;
    if (!this.setup.browser && network === undefined) return;
    const { viewport, chromiumPath } = this.setup.browser ?? {};
    useBrowser(
      this.setup.scratchDir,
      new BrowserSession({ ...(viewport ? { viewport } : {}), ...(chromiumPath ? { chromiumPath } : {}), ...(network ? { network } : {}) }),
    );
  }

  /** The model may ask for a command soon: what the first one needs starts now, beside the model's request, not after its reply. */
  prepareCommands(): void {
    if (!this.setup.commands) this.setup.sandbox?.sandbox?.prepareNetwork();
  }

  /** The run ended: background commands and the browser stop with it. */
  async end(): Promise<void> {
    const servers = this.servers;
    this.servers = undefined;
    await Promise.all([this.current.dispose(), servers?.stop()]);
    await closeBrowserFor(this.setup.scratchDir);
  }

  /** The sandbox commands run in, as hosts show it: none here when the host's executor runs them. */
  sandboxSummary(): SandboxJson {
    if (this.setup.commands) return { mode: "off", reason: "commands run on the host's executor" };
    return this.setup.sandbox?.summary ?? { mode: "off", reason: "the host gave no sandbox" };
  }

  private newTerminal(): Terminal {
    const sandbox = this.setup.sandbox?.sandbox;
    const executor = this.setup.commands;
    return new Terminal({ scratchDir: this.setup.scratchDir, env: { [taskEnvName]: this.setup.sessionId }, ...(sandbox ? { sandbox } : {}), ...(executor ? { executor } : {}) });
  }
}
