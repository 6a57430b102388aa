import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { classifyCommand } from "./classify.js";
import { loadShellParser, type ShellParser } from "./parse-shell.js";

/**
 * The screen of destructive commands (issue 22): every family the red teams found a way through,
 * in every spelling the programs accept, must need approval; the look-alikes that only read or
 * touch named files must stay safe, so that `--auto-approve safe-commands` stays useful. Each
 * family is whole, not the reported example: rm's flags that reach directories, editors run by a
 * script, npm's aliases and abbreviations (and pnpm's, yarn's, bun's), git commands that discard
 * work, and kill's signal in every spelling.
 */
const dangerous: Record<string, readonly string[]> = {
  "rm that removes directories": [
    "rm -d f dir", "rm -d dir", "rm --dir dir", "rm --di dir", "rm -vd dir", "rm -dv f", "rm -id dir", "rm -r dir", "rm -R dir", "rm -rf .",
    "rm -fr dir", "rm -Rf dir", "rm --recursive dir", "rm --rec dir", "rm -v -r dir", "rm -f f", "rm --force f", "rm -I -r dir",
    "rm *.log", "rm $F", "xargs rm < list", "git ls-files | xargs rm", "find . -exec rm {} +", "find . -delete", "sh -c 'rm -d dir'",
    "command rm -d dir", "/bin/rm -d dir", "\\rm -d dir", "'rm' -d dir", "r\\m --dir dir", "env rm -d dir", "nice rm -d dir",
  ],
  "editors run by a script": [
    "ed -s f <<< $'w /tmp/x'", "ed f < script.ed", "printf 'w /tmp/x\\n' | ed f", "ed -s f <<'EOF'\n,w /tmp/out\nq\nEOF",
    "ed -s f <<'EOF'\n!touch p\nEOF", "red f < s", "ex -sc 'w /tmp/x' -cx f", "ex f < s", "vi -c 'w /tmp/x' f", "vim -es f < s",
    "vim +'w /tmp/x' +q f", "vim -s keys f", "vim -S s.vim f", "nvim --headless -c 'w /tmp/x' -c q f", "view -c '!touch p' f",
    "vimdiff -c 'w! /tmp/x' a b", "emacs --batch -l x.el", "emacs --batch --eval '(write-region 1 2 \"/tmp/x\")'",
    "sed -i s/a/b/ /tmp/f", "sed -i 'w /tmp/x' f", "sed -n 'w /tmp/o' f", "sed 'e touch p' f", "perl -pi -e 's/a/b/' f",
    "ruby -i -pe 'x' f", "awk -i inplace '{print}' f", "gawk -i inplace -f x.awk f",
  ],
  "package managers: publishing, accounts and global state, in every alias": [
    "npm publish", "npm pub", "npm publ", "npm publi", "npm unpublish x", "npm unpub x", "npm unp x", "npm --loglevel silent publish",
    "npm --prefix . pub", "npm -w pkg publish", "npm --tag beta publish", "npm -g publish", "npm deprecate x 'old'", "npm dep x 'old'",
    "npm undeprecate x", "npm dist-tag add x@1 latest", "npm dist-tags rm x beta", "npm owner add u x", "npm author add u x",
    "npm access set status=public", "npm team create org:t", "npm token revoke 1", "npm org set o u", "npm adduser", "npm add-user",
    "npm login", "npm logi", "npm logout", "npm config set script-shell /tmp/x", "npm c set x y", "npm conf set x y", "npm set x y",
    "npm config delete x", "npm config edit", "npm link", "npm ln", "npm link other", "npm i -g x", "npm inst -g x", "npm isntall -g x",
    "npm add -g x", "npm update -g", "npm rm -g x", "npm install --global x", "npm exec -c 'touch p'", "npm x -c 'touch p'",
    "npm explore x -- touch p", "npm star x", "npm trust github x", "pnpm publish", "pnpm pub", "pnpm unpublish x", "pnpm add -g x",
    "pnpm i -g x", "pnpm link --global", "pnpm deprecate x m", "yarn publish", "yarn npm publish", "yarn npm pub", "yarn npm login",
    "yarn npm tag add x@1 beta", "yarn global add x", "yarn login", "yarn tag add x@1 beta", "yarn owner add u x", "yarn link",
    "yarn config set x y", "bun publish", "bun pub", "bun add -g x", "bun i -g x", "bun link", "npm $CMD",
    // What exec runs is a command like any other.
    "pnpm exec rm -rf d", "yarn exec rm -rf d", "npm exec -- rm -rf d", "npm x -- git push", "npx rm -rf d", "npx --yes rm -d d",
    "bunx rm -rf d", "pnpm dlx rm -rf d", "npx -c 'touch p'", "npx --call='touch p'", "pnpm exec kill -sKILL 1",
  ],
  "git commands that discard work": [
    "git checkout HEAD f", "git checkout HEAD f.txt", "git checkout HEAD~1 src", "git checkout main -- f", "git checkout HEAD -- .",
    "git checkout -- f", "git checkout .", "git checkout f", "git checkout f.txt", "git checkout src", "git checkout ./src/a.ts",
    "git checkout '*.ts'", "git checkout ':/'", "git checkout --ours f", "git checkout --theirs f", "git checkout -p", "git checkout -f main",
    "git checkout --force main", "git checkout --forc main", "git checkout -B main", "git checkout -B main origin/main",
    "git checkout --pathspec-from-file=list", "git -C . checkout HEAD f", "git restore f", "git restore .", "git restore -s HEAD~3 f",
    "git restore --source=HEAD -- f", "git restore -W f", "git restore --staged --worktree f", "git reset --hard", "git reset --hard HEAD~1",
    "git reset --ha", "git reset --merge", "git clean -f", "git clean -fd", "git clean -fdx", "git clean -xfd", "git clean --force",
    "git rm -rf .", "git rm -r dir", "git rm -f f", "git rm --force f", "git rm -r -f src", "git rm --recursive src",
    "git stash drop", "git stash clear", "git stash drop stash@{0}", "git branch -D feature", "git branch -d -f feature",
    "git branch -df feature", "git branch --delete --force feature", "git branch -f main HEAD~3", "git branch -M main", "git branch -C a main",
    "git switch -f main", "git switch --discard-changes main", "git switch -C main", "git switch --force-create main",
    "git push", "git push --force", "git push -f origin main", "git push --force-with-lease", "git push origin :main", "git push --delete origin x",
    "git update-ref -d refs/heads/main", "git update-ref refs/heads/main HEAD~5", "git reflog expire --expire=now --all",
    "git reflog delete HEAD@{1}", "git gc --prune=now", "git prune", "git worktree remove wt", "git worktree remove --force wt",
    "git tag -d v1", "git tag -f v1", "git filter-branch --tree-filter x", "git checkout-index -f -a", "git read-tree -u --reset HEAD",
    "git symbolic-ref HEAD refs/heads/x", "git $SUB", "git co HEAD f", "git nuke", "git -C . undo",
  ],
  "kill in every signal spelling": [
    "kill -9 1234", "kill -09 1234", "kill -KILL 1234", "kill -SIGKILL 1234", "kill -kill 1234", "kill -sigkill 1234", "kill -Kill 1234",
    "kill -sKILL 1234", "kill -sSIGKILL 1234", "kill -s9 1234", "kill -s KILL 1234", "kill -s SIGKILL 1234", "kill -s kill 1234",
    "kill -s 9 1234", "kill -n 9 1234", "kill -n9 1234", "kill --signal=KILL 1234", "kill --signal KILL 1234", "kill --signal=9 1234",
    "kill --sig KILL 1234", "kill --signal=SIGKILL 1234", "kill -9 -- 1234", "kill -KILL -1234", "kill -1", "kill -- -1", "kill -TERM -1",
    "kill -s TERM -1", "kill -$SIG 1234", "kill -s $SIG 1234", "kill $PID", "/bin/kill -9 1234", "/usr/bin/kill --signal KILL 1",
    "command kill -9 1", "builtin kill -sKILL 1", "sh -c 'kill -9 1'", "timeout 5 kill -9 1", "killall node", "killall -9 node",
    "pkill -f server", "pkill -9 x", "killall5 -9", "skill -KILL u", "fuser -k 8080/tcp", "fuser -k -9 f",
  ],
};

/** The look-alikes: they must keep running unasked. */
const safe: Record<string, readonly string[]> = {
  "rm that removes directories": ["rm f", "rm f.txt", "rm -- -odd", "rm -v f", "rm -i f", "rm src/a.ts f.txt", "rmdir empty", "rm --verbose f"],
  "editors run by a script": ["sed -i s/a/b/ f.txt", "sed -n 1,5p f", "sed 's/a/b/' f", "sed -i.bak 's/a/b/' f", "awk '{print $1}' f", "vim --version", "ed --version", "cat f"],
  "package managers: publishing, accounts and global state, in every alias": [
    "npm test", "npm t", "npm tst", "npm run build", "npm run publish", "npm run-script lint", "npm i", "npm install", "npm ci", "npm install -D vitest",
    "npm pack", "npm view x", "npm info x", "npm ls", "npm outdated", "npm config get registry", "npm config list", "npm dist-tag ls x",
    "npm owner ls x", "npm whoami", "npm exec vitest", "npx vitest", "npm install pub", "pnpm test", "pnpm install", "pnpm i", "pnpm run build",
    "yarn", "yarn test", "yarn install", "yarn add -D x", "yarn npm info x", "bun install", "bun test", "bun add x", "npm --version",
    "pnpm exec vitest", "npx vitest run", "npx -y prettier --check .", "npm exec -- vitest", "npx vitest -c vitest.config.ts", "bunx tsc --noEmit",
  ],
  "git commands that discard work": [
    "git checkout main", "git checkout -b x", "git checkout -b x origin/x", "git checkout --orphan gh-pages", "git checkout -", "git checkout HEAD~1",
    "git checkout feature/login", "git switch main", "git switch -c x", "git restore --staged f", "git reset", "git reset HEAD~1",
    "git reset --soft HEAD~1", "git reset -- f", "git clean -n", "git clean --dry-run", "git rm f", "git rm --cached f", "git rm -r --cached dir",
    "git stash", "git stash list", "git stash pop", "git branch", "git branch -d merged", "git branch x", "git tag v2", "git tag -l",
    "git worktree list", "git reflog", "git gc", "git status", "git log --oneline", "git diff", "git add -A", "git commit -m x",
    "git lfs pull", "git --version", "git -C src log",
  ],
  "kill in every signal spelling": [
    "kill 1234", "kill -0 1234", "kill -TERM 1234", "kill -15 1234", "kill -s TERM 1234", "kill -sTERM 1234", "kill -HUP 1234", "kill -INT 1234",
    "kill --signal=TERM 1234", "kill -l", "kill -L", "kill -l 9", "kill -n 15 1234", "pgrep node", "fuser 8080/tcp",
  ],
};

let shell: ShellParser;
let cwd: string;
beforeAll(async () => {
  shell = await loadShellParser();
  // A real workspace, so that `git checkout f` (a file that exists) reads as the path it is.
  cwd = realpathSync(mkdtempSync(path.join(os.tmpdir(), "cairn-dangerous-")));
  for (const file of ["f", "f.txt", "src/a.ts"]) {
    mkdirSync(path.dirname(path.join(cwd, file)), { recursive: true });
    writeFileSync(path.join(cwd, file), "x");
  }
  mkdirSync(path.join(cwd, "dir"));
  mkdirSync(path.join(cwd, "empty"));
});
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

describe.each(Object.keys(dangerous))("%s", (family) => {
  it.each(dangerous[family]!.map((c) => [c]))("asks before %s", (command) => {
    const result = classifyCommand(command, { cwd }, shell);
    expect(result.risk, result.reasons.join(" | ")).toBe("needs_approval");
  });

  it.each(safe[family]!.map((c) => [c]))("runs %s unasked", (command) => {
    expect(classifyCommand(command, { cwd }, shell)).toEqual({ risk: "safe", reasons: [] });
  });
});

it("lets none of the dangerous commands run unasked, and every look-alike run", () => {
  const all = Object.values(dangerous).flat();
  const unasked = all.filter((command) => classifyCommand(command, { cwd }, shell).risk === "safe");
  expect(unasked).toEqual([]);
  expect(all.length).toBeGreaterThanOrEqual(170);
  const looksAlike = Object.values(safe).flat();
  expect(looksAlike.filter((command) => classifyCommand(command, { cwd }, shell).risk !== "safe")).toEqual([]);
});
