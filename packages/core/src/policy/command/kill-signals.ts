import { isLongPrefixOf } from "./option-match.js";
import type { CommandView } from "./risk-checks.js";

/**
 * The signals a kill names, in every spelling bash's builtin and procps/util-linux accept: -9,
 * -09, -KILL, -SIGKILL, -kill, -s KILL, -sKILL, -s9, -n 9, -n9, --signal KILL, --signal=KILL
 * (and its prefixes). Where the two kills read a word differently (`-sigkill`: bash reads -s
 * IGKILL, util-linux SIGKILL), both readings count. null: a signal computed at run time.
 */
function killSignals(args: readonly (string | undefined)[]): { signals: (string | null)[]; targets: (string | undefined)[]; lists: boolean } {
  const signals: (string | null)[] = [];
  let sawSignal = false;
  let i = 0;
  for (; i < args.length; i++) {
    const arg = args[i];
    if (arg === undefined) {
      if (!sawSignal && i + 1 < args.length) signals.push(null); // could be the signal: `kill $SIG pid` is refused by bash, `kill -$SIG` is not
      break;
    }
    if (arg === "--") {
      i++;
      break;
    }
    if (arg === "-l" || arg === "-L" || isLongPrefixOf(arg, "--list") || isLongPrefixOf(arg, "--table")) return { signals: [], targets: [], lists: true };
    if (arg.startsWith("--")) {
      if (!isLongPrefixOf(arg, "--signal")) continue;
      const eq = arg.indexOf("=");
      signals.push(eq < 0 ? (args[++i] ?? null) : arg.slice(eq + 1));
      sawSignal = true;
      continue;
    }
    if (arg === "-s" || arg === "-n") {
      signals.push(args[++i] ?? null);
      sawSignal = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-" || sawSignal) break; // after the signal, -N is a process group
    if (/^-[sn]./.test(arg)) signals.push(arg.slice(2));
    signals.push(arg.slice(1));
    sawSignal = true;
  }
  return { signals, targets: args.slice(i), lists: false };
}

/** The signal's canonical name: 9, KILL, SIGKILL, kill and 09 all read KILL. */
function signalName(signal: string): string {
  const upper = signal.toUpperCase().replace(/^SIG/, "");
  if (/^\d+$/.test(upper)) return Number(upper) === 9 ? "KILL" : String(Number(upper));
  return upper;
}

export function kill({ args }: CommandView): string | undefined {
  const { signals, targets, lists } = killSignals(args);
  if (lists) return undefined;
  if (signals.includes(null)) return "kill with a signal computed at run time";
  if (signals.some((s) => s !== null && signalName(s) === "KILL")) return "kill -9 (SIGKILL) stops processes without letting them clean up";
  if (targets.some((t) => t === undefined)) return "kill with arguments computed at run time";
  // `kill -1` alone reads as a signal to bash but as process -1 (every process) to some kills.
  if (targets.includes("-1") || (targets.length === 0 && signals.some((s) => s !== null && signalName(s) === "1"))) return "kill -1 signals every process you own";
  return undefined;
}
