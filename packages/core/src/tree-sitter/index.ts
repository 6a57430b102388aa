export { loadGrammar, type LoadedGrammar } from "./runtime.js";
