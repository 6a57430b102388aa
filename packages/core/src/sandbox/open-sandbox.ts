import { realpathSync } from "node:fs";
import os from "node:os";
import { contains } from "./bwrap-args.js";
import { CommandSandbox, type SandboxSummary } from "./command-sandbox.js";
import { cairnHomeSecretFiles, credentialPaths, existingFolders, expandHome, hostSocketPaths } from "./hidden-paths.js";
import { findNetworkPrograms, isolatedNetwork, type IsolatedNetwork } from "./isolated-network.js";
import { probeBubblewrap } from "./probe.js";
import { seccompFilterFile, seccompSupported } from "./seccomp-filter.js";
import type { SandboxRequest } from "./sandbox-settings.js";

export type OpenedSandbox =
  /** The sandbox commands run in; undefined when off or unavailable (then `summary` says why; `notice`, the first time, is a line for the person). */
  | { ok: true; sandbox: CommandSandbox | undefined; summary: SandboxSummary; notice?: string }
  /** `required` and the sandbox cannot start: one line saying what to install (hosts prefix their name). */
  | { ok: false; error: string };

let fallbackNoticeShown = false;
let sharedNetworkNoticeShown = false;
let noFilterNoticeShown = false;

/**
 * The sandbox for a workspace as requested. Where bubblewrap is missing or cannot start, the
 * fallback is said once per process in `notice` (commands then run under approval rules alone);
 * `required` refuses instead.
 */
export function openSandbox(
  request: SandboxRequest,
  where: { workspace: string; cairnHome: string; env: Record<string, string | undefined> },
): OpenedSandbox {
  if (request.mode === "off") return { ok: true, sandbox: undefined, summary: { mode: "off", reason: "turned off (--sandbox off or settings)" } };
  const probe = probeBubblewrap(where.env.PATH, request.network === "off", where.cairnHome);
  if (!probe.ok) {
    if (request.mode === "required") {
      return {
        ok: false,
        error: `--sandbox required, but ${probe.reason}. Install bubblewrap (Debian/Ubuntu: apt install bubblewrap; Fedora: dnf install bubblewrap) and make sure user namespaces are allowed, or choose another --sandbox mode.`,
      };
    }
    const summary: SandboxSummary = { mode: "off", reason: probe.reason };
    if (fallbackNoticeShown) return { ok: true, sandbox: undefined, summary };
    fallbackNoticeShown = true;
    return {
      ok: true,
      sandbox: undefined,
      summary,
      notice: `commands run without the OS sandbox: ${probe.reason}; only approval rules guard them (install bubblewrap, or use --sandbox required to refuse to run without it).`,
    };
  }
  const network = chooseNetwork(request, where.env);
  if (!network.ok) return network;
  const notices: string[] = [];
  if (network.notice !== undefined && !sharedNetworkNoticeShown) {
    sharedNetworkNoticeShown = true;
    notices.push(network.notice);
  }
  if (!seccompSupported() && !noFilterNoticeShown) {
    noFilterNoticeShown = true;
    notices.push(`commands run without the sandbox's seccomp filter (none is built for ${process.arch}): they can read your kernel keyring.`);
  }
  const home = where.env.HOME?.trim() || os.homedir();
  const sandbox = new CommandSandbox({
    bwrap: probe.bwrap,
    mode: request.mode === "read-only" ? "read-only" : "workspace-write",
    network: request.network,
    workspace: realpathSync.native(where.workspace),
    hiddenPaths: [
      where.cairnHome,
      // Covered one by one only when CAIRN_HOME itself cannot be (it holds the workspace): a mount
      // inside the covered CAIRN_HOME would need a mount point bubblewrap cannot make there.
      ...(holdsWorkspace(where.cairnHome, where.workspace) ? cairnHomeSecretFiles.map((p) => expandHome(p, where.cairnHome)) : []),
      ...credentialPaths.map((p) => expandHome(`~/${p}`, home)),
      // The X server's cookie where the session keeps it elsewhere (/run/user/<uid>/..., /tmp/xauth_...).
      ...(where.env.XAUTHORITY?.trim() ? [expandHome(where.env.XAUTHORITY.trim(), home)] : []),
      ...hostSocketPaths,
      ...request.hiddenPaths.map((p) => expandHome(p, home)),
    ],
    writablePaths: existingFolders(request.writablePaths.map((p) => expandHome(p, home))),
    passEnv: request.passEnv ?? [],
    isolatedNetwork: network.isolated,
    seccompFilter: seccompFilterFile(where.cairnHome),
    // Language servers run with no network even when commands have it; probed only when one starts.
    canUnshareNet: () => request.network === "off" || probeBubblewrap(where.env.PATH, true, where.cairnHome).ok,
  });
  return { ok: true, sandbox, summary: sandbox.summary(), ...(notices.length > 0 ? { notice: notices.join("; ") } : {}) };
}

/**
 * Network on keeps commands off this machine's loopback (isolated-network.ts) unless the person
 * allows it. Where the programs for that are missing, commands share the host's network, said once;
 * `required` refuses instead.
 */
function chooseNetwork(
  request: SandboxRequest,
  env: Record<string, string | undefined>,
): { ok: true; isolated?: IsolatedNetwork; notice?: string } | { ok: false; error: string } {
  if (request.network === "off" || request.allowLocalhost === true) return { ok: true };
  const programs = findNetworkPrograms(env.PATH);
  if (programs.ok) return { ok: true, isolated: isolatedNetwork(programs) };
  if (request.mode === "required") {
    return {
      ok: false,
      error: `--sandbox required, but ${programs.missing}, and without it commands would reach servers on this machine's localhost (${programs.fix}); or set "sandbox": {"allowLocalhost": true} or "network": "off" in settings.json.`,
    };
  }
  return {
    ok: true,
    notice: `commands share this machine's network, servers on localhost included: ${programs.missing} (${programs.fix}); set "sandbox": {"allowLocalhost": true} if that is what you want, or "network": "off".`,
  };
}

/** Whether `folder` holds `workspace`, by real paths (a folder that does not exist holds nothing). */
function holdsWorkspace(folder: string, workspace: string): boolean {
  try {
    return contains(realpathSync.native(folder), realpathSync.native(workspace));
  } catch {
    return false;
  }
}
