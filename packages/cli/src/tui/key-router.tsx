/** @jsxRuntime automatic */
import { useInput, type Key } from "ink";
import { createContext, useContext, useEffect, useRef, type ReactNode } from "react";

/** Returns true when it used the key (so it goes no further). */
export type KeyHandler = (input: string, key: Key) => boolean | void;

type Router = { register(handler: { current: KeyHandler }): () => void };

const RouterContext = createContext<Router | null>(null);

/**
 * One keyboard listener for the whole app, so the order in which keys are handled is fixed:
 * `before` (keys that work everywhere: Ctrl-C, Shift+Tab, Ctrl-O), then the focused component
 * (the last one registered), then `after` (Esc: stop or leave, unless the component used it).
 */
export function KeyRouter({ before, after, children }: { before?: KeyHandler; after?: KeyHandler; children: ReactNode }) {
  const stack = useRef<Array<{ current: KeyHandler }>>([]);
  const router = useRef<Router>({
    register(handler) {
      stack.current.push(handler);
      return () => {
        stack.current = stack.current.filter((h) => h !== handler);
      };
    },
  });
  useInput((input, key) => {
    if (before?.(input, key)) return;
    const focused = stack.current.at(-1);
    if (focused?.current(input, key)) return;
    after?.(input, key);
  });
  return <RouterContext.Provider value={router.current}>{children}</RouterContext.Provider>;
}

/** Receives keys while `active` and while this is the most recently focused component. */
export function useKeys(handler: KeyHandler, active = true): void {
  const router = useContext(RouterContext);
  const ref = useRef(handler);
  ref.current = handler;
  useEffect(() => {
    if (!active || !router) return;
    return router.register(ref);
  }, [active, router]);
}
