// highlight.js ships types for its full entry and its languages, not for the core-only entry.
declare module "highlight.js/lib/core" {
  import hljs from "highlight.js";
  export default hljs;
}
