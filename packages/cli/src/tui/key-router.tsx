/** @jsxRuntime automatic */
import { useInput, useStdin } from "ink";
import { createContext, useContext, useEffect, useLayoutEffect, useRef, type ReactNode } from "react";
import { InputSorter, type RoutedKey } from "./bracketed-paste.js";

/** Returns true when it used the key (so it goes no further). `key.paste` marks pasted text. */
export type KeyHandler = (input: string, key: RoutedKey) => boolean | void;

type Router = { register(handler: { current: KeyHandler }): () => void };

const RouterContext = createContext<Router | null>(null);

/**
 * One keyboard listener for the whole app, so the order in which keys are handled is fixed:
 * `before` (keys that work everywhere: Ctrl-C, Shift+Tab, Ctrl-O), then the focused component
 * (the last one registered), then `after` (Esc: stop or leave, unless the component used it).
 *
 * Ink reads single keys; pastes and runs of typed text with Enter in them are sorted out here
 * first, from the raw input ink passes on (see InputSorter), and ink's reading of those is skipped.
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
  const edges = useRef({ before, after });
  edges.current = { before, after };
  const dispatch = useRef((input: string, key: RoutedKey) => {
    if (edges.current.before?.(input, key)) return;
    const focused = stack.current.at(-1);
    if (focused?.current(input, key)) return;
    edges.current.after?.(input, key);
  }).current;

  const { internal_eventEmitter: rawInput } = useStdin();
  const sorter = useRef(new InputSorter());
  const inkSkips = useRef(false);
  useEffect(() => {
    const onRaw = (raw: string) => {
      const events = sorter.current.take(raw);
      if (events === undefined) return;
      inkSkips.current = true;
      // Listeners run synchronously within one emit: by the next microtask ink has seen this input.
      queueMicrotask(() => (inkSkips.current = false));
      for (const event of events) dispatch(event.input, event.key);
    };
    // First in line, so ink's own reading of the same input can be skipped.
    rawInput.prependListener("input", onRaw);
    return () => {
      rawInput.off("input", onRaw);
    };
  }, [rawInput, dispatch]);

  useInput((input, key) => {
    if (inkSkips.current) {
      inkSkips.current = false;
      return;
    }
    dispatch(input, key);
  });
  return <RouterContext.Provider value={router.current}>{children}</RouterContext.Provider>;
}

/** Receives keys while `active` and while this is the most recently focused component. */
export function useKeys(handler: KeyHandler, active = true): void {
  const router = useContext(RouterContext);
  const ref = useRef(handler);
  ref.current = handler;
  // A layout effect: focus moves in the same commit that draws the new component, so a key typed
  // as soon as it shows (a fast typist, a script) reaches it, not the one it replaced.
  useLayoutEffect(() => {
    if (!active || !router) return;
    return router.register(ref);
  }, [active, router]);
}
