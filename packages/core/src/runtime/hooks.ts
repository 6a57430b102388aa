/** The loop's hook interface lives in hooks/ (a leaf the runtime imports), so the shell hooks can implement it without a folder loop. */
export type { AfterToolVerdict, BeforeToolVerdict, HookContext, Hooks } from "../hooks/loop-hooks.js";
