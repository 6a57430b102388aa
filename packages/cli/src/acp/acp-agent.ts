import { agent, PROTOCOL_VERSION, RequestError, type AgentApp, type AgentContext, type ClientCapabilities } from "@agentclientprotocol/sdk";
import { modes, type Mode } from "@cairn/core";
import type { Io } from "@cairn/host/io";
import { SessionRecordings } from "@cairn/host/record";
import type { RunArgs } from "@cairn/host/run-args";
import { isUsageError } from "@cairn/host/usage-error";
import { AcpSession, modeState } from "./acp-session.js";
import { clientFiles } from "./client-files.js";
import { serverConfigs } from "./mcp-servers.js";
import { createTask, loadTask, type Opening } from "./open-acp-task.js";

/**
 * Cairn as an ACP agent: the handlers an editor calls. `args` are the run options `cairn acp`
 * was started with (model, auto-approve, sandbox, ...), applied to every session.
 */
export function cairnAgent(args: RunArgs, io: Io, version: string): { app: AgentApp; closeAll(): Promise<void> } {
  const sessions = new Map<string, AcpSession>();
  let capabilities: ClientCapabilities | undefined;
  const recordings = SessionRecordings.of(args, io.env);

  const open = async (client: AgentContext, servers: Parameters<typeof serverConfigs>[0], cwd: string, how: (session: AcpSession, opening: Opening) => Promise<void>): Promise<AcpSession> => {
    const session = new AcpSession(client, capabilities?.session?.notices != null, (line) => io.stderr(`cairn: ${line}\n`));
    const files = clientFiles(capabilities, client, () => session.id);
    try {
      await how(session, { args, io, host: session.host, recordings, editor: { mcpServers: serverConfigs(servers, cwd), ...(files ? { files } : {}) } });
    } catch (error) {
      // A setting the person must fix (a missing key, a bad model): the editor shows the line.
      if (isUsageError(error)) throw RequestError.invalidParams(undefined, error.message);
      throw error;
    }
    sessions.set(session.id, session);
    return session;
  };
  const find = (id: string): AcpSession => {
    const session = sessions.get(id);
    if (!session) throw RequestError.invalidParams(undefined, `No session ${id} in this connection: start one with session/new or load it with session/load.`);
    return session;
  };
  // Sent once the session's id is known to the editor (after the response that names it).
  const later = (session: AcpSession) => setTimeout(() => session.announceCommands(), 0);

  const app = agent({ name: "cairn" })
    .onRequest("initialize", ({ params }) => {
      capabilities = params.clientCapabilities;
      return {
        protocolVersion: PROTOCOL_VERSION,
        agentCapabilities: {
          loadSession: true,
          promptCapabilities: { image: true, embeddedContext: true },
          mcpCapabilities: { http: true, sse: true },
        },
        agentInfo: { name: "cairn", title: "Cairn", version },
        authMethods: [],
      };
    })
    .onRequest("session/new", async ({ params, client }) => {
      const session = await open(client, params.mcpServers, params.cwd, async (session, o) => session.adopt(await createTask({ ...o, cwd: params.cwd })));
      later(session);
      return { sessionId: session.id, modes: modeState(session.mode) };
    })
    .onRequest("session/load", async ({ params, client }) => {
      // Loading a session this connection has open starts it over from its record.
      await sessions.get(params.sessionId)?.close();
      sessions.delete(params.sessionId);
      const session = await open(client, params.mcpServers, params.cwd, async (session, o) => {
        const { runner, earlier } = await loadTask({ ...o, id: params.sessionId, cwd: params.cwd });
        session.adopt(runner, { sessionId: params.sessionId, earlier });
      });
      await session.replay();
      later(session);
      return { modes: modeState(session.mode) };
    })
    .onRequest("session/prompt", async ({ params }) => {
      const stopReason = await find(params.sessionId).prompt(params.prompt);
      return { stopReason };
    })
    .onNotification("session/cancel", ({ params }) => {
      sessions.get(params.sessionId)?.cancel();
    })
    .onRequest("session/set_mode", ({ params }) => {
      if (!(modes as readonly string[]).includes(params.modeId)) throw RequestError.invalidParams(undefined, `Unknown mode "${params.modeId}": use act or plan.`);
      find(params.sessionId).setMode(params.modeId as Mode);
      return {};
    });

  return {
    app,
    closeAll: async () => {
      await Promise.all([...sessions.values()].map((s) => s.close()));
      sessions.clear();
    },
  };
}
