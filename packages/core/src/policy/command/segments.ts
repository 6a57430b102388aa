import type { Word } from "./words.js";

/** One simple command the shell would run, as rules see it. */
export type Segment = {
  /** NAME=value words before the command (`FOO=1 ls`), or the whole of a bare assignment. */
  assignments: Word[];
  /** The command name and its arguments; empty for a bare assignment. */
  words: Word[];
  /** How the command is reached: [] at top level, else e.g. ["$(…)"], ["sudo"], ["sh -c"]. */
  via: string[];
  /** Where the command reads its input: a pipe, a redirect/heredoc, or whatever its parent had. */
  stdin: "pipe" | "redirect" | "inherited";
  /** Redirects written on this command (also listed in CommandAnalysis.redirects). */
  redirects: Redirect[];
  /** A shell (sh/bash/… without -c or a script file) that reads its program from stdin. */
  programFromStdin: boolean;
  /** A shell or `source` whose program another command produces: `… | sh`, `bash <(…)`, `source <(…)`. */
  runsGeneratedProgram: boolean;
};

export type Redirect = {
  /** The operator as written: >, >>, <, &>, >&, <&, >|, <<, <<-, <<<. */
  operator: string;
  descriptor?: string;
  /** The file or descriptor; absent for heredocs and `>&-`. */
  target?: Word;
  /** Duplicating or closing a descriptor (2>&1, >&-) or using /dev/null: it touches no file. */
  harmless: boolean;
  /** The text a heredoc or here-string feeds, when it is fixed; undefined when it has expansions. */
  input?: string | undefined;
  /** The statement the redirect belongs to (its first line), for messages. */
  statement: string;
};

export type AnalysisProblem = {
  /** "opaque": bash or the program would run code that the command line does not show (arithmetic on names, git -c alias.x=!…). */
  kind: "unparseable" | "character" | "unanalysable" | "opaque" | "too-deep" | "too-long";
  /** Says what is wrong, for a person or the model. */
  problem: string;
  segment?: string;
};

export type CommandAnalysis = { ok: true; segments: Segment[]; redirects: Redirect[] } | ({ ok: false } & AnalysisProblem);

/** Thrown while walking a command and turned into a failed analysis by analyseCommand. */
export class Unanalysable extends Error {
  constructor(readonly detail: AnalysisProblem) {
    super(detail.problem);
  }
}
