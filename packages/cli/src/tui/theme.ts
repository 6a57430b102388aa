import { createContext, useContext } from "react";

/**
 * Colours by meaning. Only the 16 standard ANSI colours, which every terminal theme maps to
 * something readable on its own background (light or dark); never white, black or a background
 * colour. With NO_COLOR every colour is undefined and meaning is carried by the symbols alone
 * (+/−, ✓/✗, ›), so nothing is lost. (chalk, under ink, does not read NO_COLOR itself.)
 */
export type Theme = {
  accent: string | undefined;
  added: string | undefined;
  removed: string | undefined;
  warning: string | undefined;
  error: string | undefined;
  success: string | undefined;
  mode: { act: string | undefined; plan: string | undefined };
};

const colourful: Theme = {
  accent: "cyan",
  added: "green",
  removed: "red",
  warning: "yellow",
  error: "red",
  success: "green",
  mode: { act: "green", plan: "magenta" },
};

const plain: Theme = {
  accent: undefined,
  added: undefined,
  removed: undefined,
  warning: undefined,
  error: undefined,
  success: undefined,
  mode: { act: undefined, plan: undefined },
};

/** https://no-color.org: present and not empty means no colour. */
export function themeFor(env: Record<string, string | undefined>): Theme {
  return env.NO_COLOR !== undefined && env.NO_COLOR !== "" ? plain : colourful;
}

export const ThemeContext = createContext<Theme>(colourful);

export function useTheme(): Theme {
  return useContext(ThemeContext);
}

export const symbols = {
  prompt: "›",
  done: "✓",
  failed: "✗",
  denied: "⊘",
  running: "…",
  tool: "●",
  reasoning: "∴",
  user: "❯",
  bullet: "·",
} as const;
