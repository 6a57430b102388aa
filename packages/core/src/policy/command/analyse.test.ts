import { beforeAll, describe, expect, it } from "vitest";
import { analyseCommand } from "./analyse.js";
import { segmentText } from "./forms.js";
import { loadShellParser, type ShellParser } from "./parse-shell.js";
import { displayWord } from "./words.js";

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

/** Each segment as "text" or "text <- via". */
function segments(command: string): string[] {
  const analysis = analyseCommand(shell, command);
  if (!analysis.ok) throw new Error(`not analysed: ${analysis.problem}`);
  return analysis.segments.map((s) => (s.via.length === 0 ? segmentText(s) : `${segmentText(s)} <- ${s.via.join(" > ")}`));
}

function problem(command: string): string {
  const analysis = analyseCommand(shell, command);
  if (analysis.ok) throw new Error(`analysed: ${segments(command).join(" | ")}`);
  return `${analysis.kind}: ${analysis.problem}`;
}

describe("segments", () => {
  it("splits chains, pipes, lists and background jobs, not quoted separators", () => {
    expect(segments("a && b || c; d | e & f")).toEqual(["a", "b", "c", "d", "e", "f"]);
    expect(segments("echo 'a;b' \"c|d\" e\\&\\&f")).toEqual(["echo a;b c|d e&&f"]);
  });

  it("walks groups, subshells, control flow and function bodies", () => {
    expect(segments("(a; { b; }) && if c; then d; elif e; then f; else g; fi")).toEqual(["a", "b", "c", "d", "e", "f", "g"]);
    expect(segments("for x in 1 2; do a $x; done; while b; do c; done; case $y in z) d;; esac")).toEqual(["a $x", "b", "c", "d"]);
    expect(segments("f(){ a; }; f")).toEqual(["a", "f"]);
  });

  it("lists substitutions as segments of their own, with how they were reached", () => {
    expect(segments('echo "$(a `b`)" <(c) >(d)')).toEqual(["b <- $(…) > `…`", "a `b` <- $(…)", "c <- <(…)", "d <- >(…)", "echo $(a `b`) <(c) >(d)"]);
  });

  it("removes quotes and keeps computed parts as holes", () => {
    expect(segments("'r'\"m\" $'-\\x72f' \"$HOME\"/x *.ts")).toEqual(["rm -rf $HOME/x *.ts"]);
  });

  it("keeps leading assignments apart from the command", () => {
    const analysis = analyseCommand(shell, "A=1 B='x y' cmd arg");
    expect(analysis.ok && analysis.segments.map((s) => [s.assignments.map(displayWord), s.words.map(displayWord)])).toEqual([[["A=1", "B=x y"], ["cmd", "arg"]]]);
  });

  it("marks what reads from a pipe or a redirect", () => {
    const analysis = analyseCommand(shell, "a | b; c < f; cat <<EOF | sh\nx\nEOF");
    expect(analysis.ok && analysis.segments.map((s) => `${segmentText(s)}:${s.stdin}`)).toEqual(["a:inherited", "b:pipe", "c:redirect", "cat:redirect", "sh:pipe"]);
  });

  it("passes words written after a redirect to the command, as bash does", () => {
    expect(segments("sudo 2>/dev/null rm -rf /")).toEqual(["sudo rm -rf /", "rm -rf / <- sudo"]);
    expect(segments("echo a > f b")).toEqual(["echo a b"]);
  });
});

describe("redirects", () => {
  it("records each redirect and whether it touches a file", () => {
    const analysis = analyseCommand(shell, "a <<< s > f 2>&1 >&- < g >> /dev/null &> h <&0");
    const list = analysis.ok ? analysis.redirects.map((r) => `${r.descriptor ?? ""}${r.operator}${r.target === undefined ? "" : displayWord(r.target)}:${r.harmless}`) : [];
    expect(list).toEqual([">f:false", "2>&1:true", ">&-:true", "<g:false", ">>/dev/null:true", "&>h:false", "<&0:true", "<<<s:false"]);
  });

  it("gives the redirects written after a list or pipeline to its last command, as bash does", () => {
    // tree-sitter-bash reads `a && b > f` as the whole list redirected; bash runs `a && (b > f)`.
    const analysis = analyseCommand(shell, "cd app && grep -r x . | sort > out.txt 2>&1; ls | wc -l < in.txt");
    const read = analysis.ok ? analysis.segments.map((s) => `${segmentText(s)}:${s.stdin}:${s.redirects.map((r) => `${r.operator}${displayWord(r.target!)}`).join(",")}`) : [];
    expect(read).toEqual(["cd app:inherited:", "grep -r x .:inherited:", "sort:pipe:>out.txt,>&1", "ls:inherited:", "wc -l:redirect:<in.txt"]);
    expect(analysis.ok && analysis.redirects.map((r) => r.statement)).toEqual(["sort > out.txt 2>&1", "sort > out.txt 2>&1", "wc -l < in.txt"]);
    // A quoted string of blanks is those blanks (tree-sitter-bash gives it no content node).
    const blanks = analyseCommand(shell, 'echo " " x"  "');
    expect(blanks.ok && blanks.segments[0]?.words.slice(1).map(displayWord)).toEqual([" ", "x  "]);
  });

  it("keeps the fixed text of heredocs and here-strings, and none when it has expansions", () => {
    const fixed = analyseCommand(shell, "cat <<'EOF'\n$x `y`\nEOF");
    expect(fixed.ok && fixed.redirects[0]?.input).toBe("$x `y`\n");
    const expanding = analyseCommand(shell, "cat <<EOF\n$x\nEOF");
    expect(expanding.ok && expanding.redirects[0]?.input).toBeUndefined();
    const here = analyseCommand(shell, "cat <<< 'a b'");
    expect(here.ok && here.redirects[0]?.input).toBe("a b\n");
  });
});

describe("wrappers", () => {
  it.each([
    ["sh -c 'a; b'", ["sh -c a; b", "a <- sh -c", "b <- sh -c"]],
    ["bash -xec 'a'", ["bash -xec a", "a <- bash -c"]],
    ["bash --norc -o pipefail -c a", ["bash --norc -o pipefail -c a", "a <- bash -c"]],
    ["eval a '&&' b", ["eval a && b", "a <- eval", "b <- eval"]],
    ["xargs -0 -n 1 a b", ["xargs -0 -n 1 a b", "a b … <- xargs"]],
    ["xargs -I % a % x", ["xargs -I % a % x", "a % x <- xargs"]],
    ["find . -name '*.c' -exec a {} \\; -execdir b {} + -ok c ';'", ["find . -name *.c -exec a {} ; -execdir b {} + -ok c ;", "a {} <- find -exec", "b {} <- find -exec", "c <- find -exec"]],
    ["env -i -u X A=1 a", ["env -i -u X A=1 a", "a <- env"]],
    ["sudo -u bob -E A=1 a", ["sudo -u bob -E A=1 a", "a <- sudo"]],
    ["doas -u bob a", ["doas -u bob a", "a <- doas"]],
    ["pkexec --user bob a", ["pkexec --user bob a", "a <- pkexec"]],
    ["timeout -k 5 10s a", ["timeout -k 5 10s a", "a <- timeout"]],
    ["nice -n 5 a", ["nice -n 5 a", "a <- nice"]],
    ["nohup a", ["nohup a", "a <- nohup"]],
    ["time -p a", ["time -p a", "a <- time"]],
    ["command -p a", ["command -p a", "a <- command"]],
    ["builtin a", ["builtin a", "a <- builtin"]],
    ["exec -c a", ["exec -c a", "a <- exec"]],
    ["stdbuf -oL -e 0 a", ["stdbuf -oL -e 0 a", "a <- stdbuf"]],
    ["setsid -w a", ["setsid -w a", "a <- setsid"]],
    ["ionice -c 3 a", ["ionice -c 3 a", "a <- ionice"]],
    ["chroot /srv a", ["chroot /srv a", "a <- chroot"]],
    ["taskset -c 0 a", ["taskset -c 0 a", "a <- taskset"]],
    ["watch -n 2 'a | b'", ["watch -n 2 a | b", "a <- watch", "b <- watch"]],
    ["watch -x a b", ["watch -x a b", "a b <- watch"]],
    ["su -c 'a' root", ["su -c a root", "a <- su -c"]],
    ["flock /tmp/l a", ["flock /tmp/l a", "a <- flock"]],
    ["flock -c 'a' /tmp/l", ["flock -c a /tmp/l", "a <- flock -c"]],
    ["script -qc 'a' /dev/null", ["script -qc a /dev/null", "a <- script -c"]],
    ["coproc a", ["coproc a", "a <- coproc"]],
    ["busybox a", ["busybox a", "a <- busybox"]],
    ["unbuffer a", ["unbuffer a", "a <- unbuffer"]],
    ["trap 'a' EXIT", ["trap a EXIT", "a <- trap"]],
    ["alias l='a'", ["alias l=a", "a <- alias"]],
    ["sudo sh -c 'nice a'", ["sudo sh -c nice a", "sh -c nice a <- sudo", "nice a <- sudo > sh -c", "a <- sudo > sh -c > nice"]],
  ])("%s", (command, expected) => {
    expect(segments(command)).toEqual(expected);
  });

  it("parses a heredoc fed to a shell as its script", () => {
    expect(segments("bash <<'EOF'\na\nEOF")).toEqual(["bash", "a <- bash"]);
  });

  it("marks shells and source running a program another command produces", () => {
    const flags = (command: string): boolean[] => {
      const analysis = analyseCommand(shell, command);
      return analysis.ok ? analysis.segments.map((s) => s.runsGeneratedProgram) : [];
    };
    expect(flags("a | sh")).toEqual([false, true]);
    expect(flags("bash <(a)")).toEqual([false, true]);
    expect(flags("source <(a)")).toEqual([false, true]);
    expect(flags("a | source /dev/stdin")).toEqual([false, true]);
    expect(flags("bash script.sh")).toEqual([false]);
    expect(flags("a | python3")).toEqual([false, false]); // not a shell: the classifier flags it
  });

  it("refuses wrappers it cannot follow", () => {
    expect(problem("sudo --frobnicate a")).toMatch(/sudo option --frobnicate is not one Cairn knows/);
    expect(problem("sudo $OPTS a")).toMatch(/computed at run time/);
    expect(problem("sh -c")).toMatch(/sh -c has no script/);
    expect(problem("bash -c \"$X\"")).toMatch(/computed at run time/);
    expect(problem("eval \"$X\"")).toMatch(/eval is computed at run time/);
    expect(problem("env -S 'a b'")).toMatch(/env -S/);
    expect(problem("find . -exec a {}")).toMatch(/no closing/);
    expect(problem("find $D -name x")).toMatch(/find's argument/);
    expect(problem("fish -c a")).toMatch(/fish/);
    expect(problem("parallel a ::: 1 2")).toMatch(/parallel/);
    expect(problem("time { a; }")).toMatch(/keyword "\{"/);
  });
});

describe("what cannot be analysed", () => {
  it("names the kind of problem", () => {
    expect(problem("ls 'x")).toMatch(/^unparseable: it could not be parsed as bash/);
    expect(problem("ls |")).toMatch(/^unparseable: .*missing|^unparseable: .*unexpected/);
    expect(problem("a\nb")).toBe("character: it contains a line break outside quotes, which can hide a second command");
    expect(problem("a\u2028b")).toMatch(/^character: .*U\+2028/);
    expect(problem("echo 'a\u0000'")).toMatch(/NUL/);
    expect(problem("x='$(a)'")).toMatch(/^unanalysable: it assigns text containing \$\(/);
    expect(problem("BASH_ENV=x a")).toMatch(/BASH_ENV/);
    expect(problem('echo "`echo \\"a\\"`"')).toMatch(/backquotes inside double quotes/);
    expect(problem("echo ${x#`a`}")).toMatch(/cannot see into/);
  });

  it("limits nesting", () => {
    const deep = Array.from({ length: 14 }).reduce<string>((inner) => `sh -c ${JSON.stringify(inner)}`, "a");
    expect(problem(deep)).toMatch(/^too-deep: /);
    const substitutions = `echo ${"$(".repeat(14)}a${")".repeat(14)}`;
    expect(problem(substitutions)).toMatch(/^too-deep: /);
    const fine = Array.from({ length: 3 }).reduce<string>((inner) => `sh -c ${JSON.stringify(inner)}`, "a");
    expect(segments(fine).at(-1)).toBe("a <- sh -c > sh -c > sh -c");
  });

  it("allows a newline inside quotes and heredoc bodies", () => {
    expect(segments("echo 'a\nb' \"c\nd\"")).toEqual(["echo a\nb c\nd"]);
    expect(segments("cat <<EOF\nx\ny\nEOF")).toEqual(["cat"]);
  });
});
