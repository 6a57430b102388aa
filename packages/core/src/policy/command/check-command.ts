import { analyseCommand } from "./analyse.js";
import { compilePattern, mayMatch, mustMatch, type Pattern } from "./glob.js";
import type { ShellParser } from "./parse-shell.js";
import { hasCommandRules, type CommandPermissions } from "./rules.js";
import type { AnalysisProblem, Segment } from "./segments.js";
import { allowForm, denyForms, segmentText } from "./forms.js";
import { displayWord, displayWords, joinWords } from "./words.js";

/** A denial is written for the model: what failed and what to do instead. */
export type CommandDecision = { allowed: true } | { allowed: false; reason: string; segment?: string };

/**
 * Checks a command against the permission rules (CAIRN_COMMAND_PERMISSIONS / settings.json).
 *
 * - No patterns at all: allowed, whatever the command (as in Cline).
 * - Otherwise the command must parse as bash and be fully analysable, or it is denied ("could
 *   not be parsed"): syntax errors, line breaks or control characters outside quotes, constructs
 *   or wrapper options Cairn does not know, nesting deeper than 12 (analyse.ts, wrappers.ts).
 * - Every segment must pass: each simple command of every chain, pipe, list, subshell, group,
 *   control-flow body, function body, $(…), `…`, <(…), >(…), and what wrappers run. Deny
 *   rules are checked first, on every segment, then redirects, then the allow list.
 * - Segments are matched as their words after quote removal, joined by single spaces
 *   (`'rm' -rf /`, `r\m -rf /`, `"r""m" -rf /` all read `rm -rf /`). What the shell computes at
 *   run time ($VAR, $(…), `*`, {a,b}) is a hole: a deny rule applies if it matches for SOME
 *   value of the holes, an allow rule only if it matches for EVERY value (glob.ts).
 * - Deny rules also see the command name as its basename (`/bin/rm`), lowercased, and the
 *   segment without leading assignments (forms.ts). Allow rules see the segment as written,
 *   assignments included: `FOO=1 ls` needs a rule such as `FOO=* ls`; `/tmp/git` is not `git`.
 * - Redirects are denied unless allowRedirects, except those that touch no file: descriptor
 *   duplication and closing (2>&1, >&2, <&0, >&-) and /dev/null. `|&` is a pipe. Heredocs and
 *   here-strings count as redirects. <(…) and >(…) are checked as commands, not as redirects.
 * - With deny rules, a shell or `source` running a program another command produces (`… | sh`,
 *   `bash <(…)`) is denied: the deny rules cannot see that program.
 * - Code the command line does not show is denied under any rules, whatever the allow list says:
 *   arithmetic on names and non-numeric subscripts (`$((x))`, `[[ x -eq 0 ]]`, `[ -v 'a[$(…)]' ]`),
 *   builtins that evaluate the names they are given (`printf -v`, `read`, `declare`, `let`,
 *   `mapfile -C`, …), options that carry commands (`git -c alias.x=!…`, `tar --to-command`,
 *   `ssh -o ProxyCommand=…`), and wrappers Cairn cannot follow (tmux, nsenter, valgrind, …).
 *
 * Deny rules are a backstop, not a sandbox: they cannot see into script files (`bash x.sh`),
 * interpreters (`python -c`), or programs that run commands themselves (git aliases, npm
 * scripts, make, awk system()). An allow list is the boundary that holds.
 */
export function checkCommand(command: string, permissions: CommandPermissions, shell: ShellParser): CommandDecision {
  if (!hasCommandRules(permissions)) return { allowed: true };
  const analysis = analyseCommand(shell, command);
  if (!analysis.ok) return deniedForProblem(analysis);
  const deny = permissions.deny.map(compilePattern);
  for (const segment of analysis.segments) {
    if (deny.length > 0 && segment.runsGeneratedProgram) {
      return denied(`${describe(segment)} runs a program that another command produces (a pipe, <(…) or $(…)), which the deny rules of the command permissions cannot see. Run the commands directly instead.`, segment);
    }
    const forms = denyForms(segment);
    const rule = deny.find((pattern) => forms.some((form) => mayMatch(pattern, form)));
    if (rule !== undefined) {
      const verb = forms.some((form) => form.some((p) => p.kind !== "lit")) ? "could match (part of it is computed at run time)" : "matches";
      return denied(`${describe(segment)} ${verb} the deny rule "${rule.source}" of the command permissions. Do not retry it in another form; find another way, or ask the user to run it.`, segment);
    }
  }
  if (!permissions.allowRedirects) {
    const redirect = analysis.redirects.find((r) => !r.harmless);
    if (redirect !== undefined) {
      const written = `${redirect.descriptor ?? ""}${redirect.operator}${redirect.target === undefined ? "" : displayWord(redirect.target)}`;
      return {
        allowed: false,
        reason: `The redirect "${written}" in "${redirect.statement}" is not allowed by the command permissions (only 2>&1-style duplication and /dev/null are). Run the command without it: read its output directly, and create files with write_to_file.`,
        segment: redirect.statement,
      };
    }
  }
  if (permissions.allow.length > 0) {
    const allow = permissions.allow.map(compilePattern);
    for (const segment of analysis.segments) {
      const form = allowForm(segment);
      if (allow.some((pattern) => mustMatch(pattern, form))) continue;
      const bare = joinWords(segment.words);
      if (segment.assignments.length > 0 && segment.words.length > 0 && allow.some((pattern) => mustMatch(pattern, bare))) {
        const names = segment.assignments.map((a) => displayWord(a).split("=")[0]).join(" ");
        return denied(`${describe(segment)} sets environment variables (${names}), which the allow list of the command permissions does not cover. Run it without them, or ask the user to allow a pattern such as "${names.split(" ")[0]}=* ${displayWords(segment.words)}".`, segment);
      }
      return denied(`${describe(segment)} is not on the allow list of the command permissions (${listPatterns(allow)}). Use only allowed commands, or ask the user to run this one or to allow it.`, segment);
    }
  }
  return { allowed: true };
}

function deniedForProblem(problem: AnalysisProblem): CommandDecision {
  if (problem.kind === "opaque") {
    const decision: CommandDecision = {
      allowed: false,
      reason: `The command cannot be checked: ${problem.problem}. Command permissions are in force, so commands that run code they do not show are denied; run the commands directly, or ask the user to run this one.`,
    };
    if (problem.segment !== undefined) decision.segment = problem.segment;
    return decision;
  }
  const what = problem.kind === "unparseable" ? `The command ${problem.problem.replace(/^it /, "")}` : `The command could not be parsed safely: ${problem.problem}`;
  const decision: CommandDecision = {
    allowed: false,
    reason: `${what}. Command permissions are in force, so commands that cannot be checked are denied; write it as plain bash on one line, with every command spelled out.`,
  };
  if (problem.segment !== undefined) decision.segment = problem.segment;
  return decision;
}

function denied(reason: string, segment: Segment): CommandDecision {
  return { allowed: false, reason, segment: segmentText(segment) };
}

function describe(segment: Segment): string {
  const text = `"${segmentText(segment)}"`;
  const via = segment.via.at(-1);
  return via === undefined ? text : `${text} (run by ${via})`;
}

function listPatterns(patterns: readonly Pattern[]): string {
  const shown = patterns.slice(0, 8).map((p) => `"${p.source}"`).join(", ");
  return patterns.length > 8 ? `${shown}, …` : shown;
}
