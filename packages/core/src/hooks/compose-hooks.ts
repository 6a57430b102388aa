import type { ToolResult } from "../tools/tool.js";
import type { HookNotice } from "./hook-output.js";
import type { AfterToolVerdict, BeforeToolVerdict, Hooks } from "./loop-hooks.js";

/**
 * Several Hooks as one, run in list order (programmatic hooks before the shell hooks of settings).
 * What one hook changes (request, input, result) is what the next one sees; the first deny or block
 * decides and the hooks after it do not run; ask beats allow; contexts and notices are joined in
 * order; the first endRun counts. A point no hook handles stays undefined, so the loop skips it.
 */
export function composeHooks(list: ReadonlyArray<Hooks | undefined>): Hooks {
  const hooks = list.filter((h): h is Hooks => h !== undefined);
  if (hooks.length === 1) return hooks[0]!;
  // Bound to their own object: a hook written as a class or with `this` keeps it.
  const having = <K extends keyof Hooks>(key: K): Array<NonNullable<Hooks[K]>> =>
    hooks.flatMap((h) => {
      const hook = h[key] as ((...args: unknown[]) => unknown) | undefined;
      return hook ? [hook.bind(h) as NonNullable<Hooks[K]>] : [];
    });
  const composed: Hooks = {};

  const beforeModel = having("beforeModel");
  if (beforeModel.length > 0)
    composed.beforeModel = async (request) => {
      let current = request;
      for (const hook of beforeModel) current = (await hook(current)) ?? current;
      return current;
    };
  const afterModel = having("afterModel");
  if (afterModel.length > 0)
    composed.afterModel = async (message) => {
      for (const hook of afterModel) await hook(message);
    };
  const beforeTool = having("beforeTool");
  if (beforeTool.length > 0)
    composed.beforeTool = async (call, ctx) => {
      const merged: BeforeToolVerdict = {};
      const notes = new Notes();
      for (const hook of beforeTool) {
        const verdict = await hook(merged.input ? { ...call, input: merged.input } : call, ctx);
        if (!verdict) continue;
        notes.add(verdict.notices);
        merged.endRun ??= verdict.endRun;
        if (verdict.deny !== undefined) return notes.on({ ...(merged.endRun !== undefined ? { endRun: merged.endRun } : {}), deny: verdict.deny, ...(verdict.message !== undefined ? { message: verdict.message } : {}) });
        if (verdict.input) merged.input = verdict.input;
        if (verdict.decision === "ask" || (verdict.decision === "allow" && merged.decision === undefined)) merged.decision = verdict.decision;
        merged.context = joined(merged.context, verdict.context);
      }
      return notes.on(defined(merged));
    };
  const afterTool = having("afterTool");
  if (afterTool.length > 0)
    composed.afterTool = async (call, result, ctx) => {
      const merged: AfterToolVerdict = {};
      const notes = new Notes();
      let current = result;
      for (const hook of afterTool) {
        const verdict = asAfterVerdict(await hook(call, current, ctx));
        if (!verdict) continue;
        notes.add(verdict.notices);
        if (verdict.result) current = merged.result = verdict.result;
        merged.context = joined(merged.context, verdict.context);
        merged.endRun ??= verdict.endRun;
      }
      return notes.on(defined(merged));
    };
  const onEvent = having("onEvent");
  if (onEvent.length > 0)
    composed.onEvent = (event) => {
      for (const hook of onEvent) hook(event);
    };
  const sessionStart = having("sessionStart");
  if (sessionStart.length > 0)
    composed.sessionStart = async (source, ctx) => {
      const notes = new Notes();
      let context: string | undefined;
      for (const hook of sessionStart) {
        const out = await hook(source, ctx);
        notes.add(out?.notices);
        context = joined(context, out?.context);
      }
      return notes.on(context !== undefined ? { context } : {});
    };
  const onPrompt = having("onPrompt");
  if (onPrompt.length > 0)
    composed.onPrompt = async (prompt, ctx) => {
      const notes = new Notes();
      let context: string | undefined;
      for (const hook of onPrompt) {
        const out = await hook(prompt, ctx);
        notes.add(out?.notices);
        if (out?.block !== undefined) return notes.on({ block: out.block });
        context = joined(context, out?.context);
      }
      return notes.on(context !== undefined ? { context } : {});
    };
  const onStop = having("onStop");
  if (onStop.length > 0)
    composed.onStop = async (continuations, ctx) => {
      const notes = new Notes();
      for (const hook of onStop) {
        const out = await hook(continuations, ctx);
        notes.add(out?.notices);
        if (out?.block !== undefined) return notes.on({ block: out.block });
      }
      return notes.on({});
    };
  const beforeCompact = having("beforeCompact");
  if (beforeCompact.length > 0) composed.beforeCompact = noticesOnly(beforeCompact);
  const sessionEnd = having("sessionEnd");
  if (sessionEnd.length > 0) composed.sessionEnd = noticesOnly(sessionEnd);
  const notification = having("notification");
  if (notification.length > 0)
    composed.notification = async (message, type, ctx) => {
      const notes = new Notes();
      for (const hook of notification) notes.add((await hook(message, type, ctx))?.notices);
      return notes.on({});
    };
  return composed;
}

/** A bare ToolResult (the older afterTool's return) is a replacement result. */
export function asAfterVerdict(out: ToolResult | AfterToolVerdict | void): AfterToolVerdict | undefined {
  if (!out) return undefined;
  return "content" in out ? { result: out } : out;
}

class Notes {
  private readonly list: HookNotice[] = [];
  add(notices: readonly HookNotice[] | undefined): void {
    if (notices) this.list.push(...notices);
  }
  on<T extends object>(value: T): T & { notices?: readonly HookNotice[] } {
    return this.list.length > 0 ? { ...value, notices: this.list } : value;
  }
}

function noticesOnly<A extends unknown[]>(hooks: Array<(...args: A) => unknown>): (...args: A) => Promise<{ notices?: readonly HookNotice[] }> {
  return async (...args) => {
    const notes = new Notes();
    for (const hook of hooks) notes.add(((await hook(...args)) as { notices?: readonly HookNotice[] } | void)?.notices);
    return notes.on({});
  };
}

function joined(a: string | undefined, b: string | undefined): string | undefined {
  if (!b) return a;
  return a ? `${a}\n${b}` : b;
}

/** Without the keys left undefined (exactOptionalPropertyTypes). */
function defined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}
