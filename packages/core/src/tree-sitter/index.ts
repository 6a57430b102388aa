export { loadGrammar, treeSitter } from "./runtime.js";
