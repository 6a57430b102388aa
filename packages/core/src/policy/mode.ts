/**
 * The two modes of a task: act changes things, plan only explores and proposes. A leaf, so
 * settings, events, tools and hosts name modes without importing what decides them.
 */
export const modes = ["act", "plan"] as const;

export type Mode = (typeof modes)[number];
