import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { startScriptedModelServer, type ScriptedTurn } from "../support/scripted-model-server.js";
import { useE2eFixture } from "../support/e2e-fixture.js";
import { cleanEnv, runCairn } from "../support/cairn-cli.js";
import { TMUX, TuiTerminal } from "../support/tui-terminal.js";

const fx = useE2eFixture((fx) => {
  writeFileSync(path.join(fx.workspace.dir, "app.js"), "console.log('v1');\n");
});

// The default Anthropic model's price is known (Sonnet: $3 / $15 per million tokens in / out).
const costly = (turn: ScriptedTurn, input: number): ScriptedTurn => ({ ...turn, usage: { input_tokens: input, output_tokens: 1_000 } });
const call = (name: string, input: Record<string, unknown>, tokensIn: number): ScriptedTurn => costly({ content: [{ type: "tool_use", name, input }] }, tokensIn);
const env = () => cleanEnv({ ANTHROPIC_API_KEY: "k", CAIRN_HOME: fx.home.dir });
const plan = "1. Change the log line in app.js to v2.\n2. Add a v3 line.\n3. Check the file.";
/** The Act phase: five writes, $0.315 each (100k in, 1k out), then the completion. */
const actTurns = () => [...[2, 3, 4, 5, 6].map((v) => call("write_to_file", { path: "app.js", content: `console.log('v${v}');\n` }, 100_000)), call("attempt_completion", { result: "Updated app.js" }, 100_000)];

/** What the tests read of a plan's estimate (priced, so its ranges are there). */
type Estimate = { usd: { low: number; high: number }; budget_usd: number };

/** A Plan mode run to its plan (two requests of 20k in, 1k out: $0.15), left waiting with its estimate. */
async function planned() {
  fx.server = await startScriptedModelServer({ turns: [call("read_file", { path: "app.js" }, 20_000), call("plan_mode_respond", { response: plan }, 20_000), ...actTurns()] });
  const run = await runCairn(["run", "--provider", "anthropic", "--base-url", fx.server.url, "--cwd", fx.workspace.dir, "--mode", "plan", "--json", "update the log line"], { env: env(), timeoutMs: 90_000 });
  expect(run.code, run.stderr).toBe(3);
  const result = run.events.at(-1)! as unknown as Record<string, unknown> & { plan_estimate: Estimate };
  return { run, result, id: result.session_id as string };
}

const act = (id: string, budget: string) => runCairn(["resume", id, "--mode", "act", "--max-budget-usd", budget, "--auto-approve", "edit", "--base-url", fx.server.url, "--json"], { env: env(), timeoutMs: 90_000 });

describe("A cost agreed before acting", { timeout: 240_000 }, () => {
  it("a plan carries its Act phase's estimate; approved with that budget, the Act phase stops at it", async () => {
    const { run, result, id } = await planned();
    expect(result).toMatchObject({ subtype: "needs_input", plan, total_cost_usd: expect.closeTo(0.15, 6) });
    const estimate = result.plan_estimate;
    // 3 steps: 4–8 requests, each resending the latest request's 20k tokens and growing, priced at the model's rates.
    expect(estimate).toMatchObject({ steps: 3, turns: { low: 4, high: 8 }, spent_usd: expect.closeTo(0.15, 6), method: expect.stringContaining("3 steps in the plan") });
    expect(estimate.usd.low).toBeLessThan(estimate.usd.high);
    expect(estimate.budget_usd).toBe(Math.ceil((0.15 + estimate.usd.high) * 100) / 100);
    const budget = estimate.budget_usd.toFixed(2);
    expect(run.stderr).toContain(`Act phase estimate: $${estimate.usd.low.toFixed(2)}–$${estimate.usd.high.toFixed(2)}`);
    expect(run.stderr).toContain(`Approve it with that budget: cairn resume ${id} --mode act --max-budget-usd ${budget}`);

    const acting = await act(id, budget);
    expect(acting.code, acting.stderr).toBe(1);
    const stopped = acting.events.at(-1)! as unknown as Record<string, unknown> & { total_cost_usd: number };
    expect(stopped).toMatchObject({ subtype: "error_max_budget_usd", result: expect.stringContaining(`reaching the budget of $${Number(budget)}`) });
    // Every request before the stop was allowed (the spend was under the budget), and the last one took it past.
    const actRequests = fx.server.requests.length - 2;
    expect(actRequests).toBeLessThan(6);
    expect(stopped.total_cost_usd).toBeGreaterThanOrEqual(Number(budget));
    expect(stopped.total_cost_usd - 0.315).toBeLessThan(Number(budget));
    // The spend against the budget as it ran.
    const usage = acting.events.filter((e) => e.type === "usage");
    expect(usage.length).toBe(actRequests);
    expect(usage.every((e) => e.budget_usd === Number(budget))).toBe(true);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).not.toContain("v6");
  });

  it("the same plan approved with a higher budget completes", async () => {
    const { id } = await planned();
    const acting = await act(id, "5");
    expect(acting.code, acting.stderr).toBe(0);
    expect(acting.events.at(-1)).toMatchObject({ subtype: "success", result: "Updated app.js" });
    expect(fx.server.requests).toHaveLength(8);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).toBe("console.log('v6');\n");
  });

  it("without --json, the progress shows the spend against the budget", async () => {
    const { id } = await planned();
    const acting = await runCairn(["resume", id, "--mode", "act", "--max-budget-usd", "5", "--auto-approve", "edit", "--base-url", fx.server.url], { env: env(), timeoutMs: 90_000 });
    expect(acting.code, acting.stderr).toBe(0);
    expect(acting.stderr).toContain("· $0.4650 of the $5 budget spent");
  });
});

describe("A cost agreed before acting, in the terminal", () => {
  let terminal: TuiTerminal | undefined;
  afterEach(async () => {
    await terminal?.close();
    terminal = undefined;
  });

  /** `cairn` at a terminal, in Plan mode, asked to update the log line: it plans, then acts for as long as the script goes. */
  async function planAtTerminal(): Promise<TuiTerminal> {
    expect(existsSync(TMUX), `tmux is needed for this test and is not at ${TMUX}`).toBe(true);
    fx.server = await startScriptedModelServer({ turns: [call("read_file", { path: "app.js" }, 20_000), call("plan_mode_respond", { response: plan }, 20_000), ...actTurns()] });
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    const t = (terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir));
    t.launch(["--provider", "anthropic", "--base-url", fx.server.url, "--mode", "plan", "--auto-approve", "read,edit"]);
    await t.waitFor(" PLAN ", 60_000);
    await t.type("update the log line");
    await t.press("Enter");
    return t;
  }

  it("the plan prompt shows the estimate and approves with its budget; the status line shows the spend against it until the budget stops the task", { timeout: 240_000 }, async () => {
    const t = await planAtTerminal();
    const prompt = await t.waitFor("The plan is above. Carry it out?", 60_000);
    expect(prompt).toMatch(/Act phase estimate: \$\d+\.\d\d–\$\d+\.\d\d \(4–8 requests/);
    const budget = /Approve with budget \$(\d+\.\d\d)/.exec(await t.waitFor("Approve with budget"))![1]!;
    await t.press("b");
    const stopped = await t.waitFor("reaching the budget of", 120_000);
    expect(stopped).toContain(`(agreed with the plan)`);
    expect(stopped).toMatch(new RegExp(`\\$\\d+\\.\\d{4} / \\$${budget.replace(".", "\\.")}`));
    expect(fx.server.requests.length).toBeLessThan(8);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).not.toContain("v6");
  });

  it("a budget agreed with the plan at the terminal holds when the task is resumed later", { timeout: 240_000 }, async () => {
    const t = await planAtTerminal();
    const budget = /Approve with budget \$(\d+\.\d\d)/.exec(await t.waitFor("Approve with budget", 60_000))![1]!;
    await t.press("b");
    await t.waitFor("reaching the budget of", 120_000);
    await t.close();
    terminal = undefined;
    const asked = fx.server.requests.length;
    const [id] = readdirSync(path.join(fx.home.dir, "tasks"));

    // Resumed without --max-budget-usd: the budget agreed with the plan still stops it, before any request.
    const resumed = await runCairn(["resume", id!, "--base-url", fx.server.url, "--auto-approve", "edit", "--json", "carry on"], { env: env(), timeoutMs: 90_000 });
    expect(resumed.code, resumed.stderr).toBe(1);
    expect(resumed.events.at(-1)).toMatchObject({ subtype: "error_max_budget_usd", result: expect.stringContaining(`reaching the budget of $${Number(budget)} (agreed with the plan)`) });
    expect(fx.server.requests.length).toBe(asked);
    // A tighter budget given on resume is the one that holds.
    const tighter = await runCairn(["resume", id!, "--base-url", fx.server.url, "--max-budget-usd", "0.2", "--json", "carry on"], { env: env(), timeoutMs: 90_000 });
    expect(tighter.events.at(-1)).toMatchObject({ subtype: "error_max_budget_usd", result: expect.stringContaining("reaching the budget of $0.2 (--max-budget-usd)") });
  });

  it("a plan left waiting by cairn run is offered again with its estimate when the task is resumed at a terminal, and approved with its budget", { timeout: 240_000 }, async () => {
    expect(existsSync(TMUX), `tmux is needed for this test and is not at ${TMUX}`).toBe(true);
    const { result, id } = await planned();
    const budget = (result.plan_estimate.budget_usd as number).toFixed(2);
    writeFileSync(path.join(fx.home.dir, "settings.json"), JSON.stringify({ checkpoints: false }));
    terminal = new TuiTerminal(cleanEnv({ TERM: "xterm-256color", CAIRN_HOME: fx.home.dir, ANTHROPIC_API_KEY: "k" }), fx.home.dir, fx.workspace.dir);
    terminal.launch(["--provider", "anthropic", "--base-url", fx.server.url, "--auto-approve", "read,edit"]);
    const t = terminal;
    await t.waitFor("Resume a recent task, or start a new one", 60_000);
    await t.press("Down", "Enter");
    await t.waitFor(`Resumed task ${id}`, 60_000);
    const prompt = await t.waitFor(`Approve with budget $${budget}`, 60_000);
    expect(prompt).toContain(`Act phase estimate: $${result.plan_estimate.usd.low.toFixed(2)}–$${result.plan_estimate.usd.high.toFixed(2)}`);
    await t.press("b");
    const stopped = await t.waitFor("reaching the budget of", 120_000);
    expect(stopped).toContain(`$${Number(budget)} (agreed with the plan)`);
    expect(readFileSync(path.join(fx.workspace.dir, "app.js"), "utf8")).not.toContain("v6");
  });
});
