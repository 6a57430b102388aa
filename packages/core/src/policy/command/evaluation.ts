import type { Node } from "web-tree-sitter";
import { Unanalysable } from "./segments.js";

/**
 * Places where bash evaluates text as arithmetic. Arithmetic reads variables recursively and
 * evaluates array subscripts inside their values, so `x='a[$(cmd)]'; echo $((x))` runs cmd even
 * though no command is written where the walker can see it. Such places are opaque: arithmetic
 * on plain numbers is fine, anything naming a variable or holding an expansion is refused, and
 * so is every other form that evaluates a name: subscripts other than a number, @ or *, substring
 * offsets (${x:off:len}), indirection (${!x}), prompt expansion (${x@P}), `[[ a -eq b ]]` on
 * anything but numbers, `-v`/`-R` tests of anything but a plain name, and C-style for loops.
 */
export function refuseEvaluation(node: Node): void {
  switch (node.type) {
    case "arithmetic_expansion":
      return arithmetic(node);
    case "expansion":
      return expansion(node);
    case "subscript":
      return subscript(node);
    case "array":
      return arrayLiteral(node);
    case "test_command":
      return testCommand(node);
    case "c_style_for_statement":
      throw opaque("a C-style for loop, whose (( … )) arithmetic evaluates variables", node);
  }
}

/** What bash may compute without running anything: digits, operators, parentheses, spaces. */
const plainArithmetic = /^[\s0-9+\-*/%()<>=!&|^~?:,]*$/;
const integer = /^[+-]?\d+$/;
const plainName = /^[A-Za-z_][A-Za-z0-9_]*$/;
const arithmeticTests = new Set(["-eq", "-ne", "-lt", "-le", "-gt", "-ge"]);
/** ${x@Q} and friends only change how a value is written; @P runs the value as a prompt, with $(…). */
const harmlessTransforms = new Set(["Q", "U", "u", "L", "a"]);

function opaque(what: string, node: Node): Unanalysable {
  const text = node.text.length > 80 ? `${node.text.slice(0, 80)}…` : node.text;
  return new Unanalysable({
    kind: "opaque",
    problem: `it uses ${what}; bash can be made to run commands hidden in a variable's value or an array subscript there ("${text}")`,
    segment: text,
  });
}

function arithmetic(node: Node): void {
  const inner = node.text.replace(/^\$?\(\(|^\$\[/, "").replace(/\)\)$|\]$/, "");
  if (!plainArithmetic.test(inner)) throw opaque("arithmetic on names or expansions ($((…)), ((…)))", node);
}

function expansion(node: Node): void {
  const children = node.children;
  if (children[1]?.type === "!") throw opaque("indirect expansion (${!name})", node);
  children.forEach((child, i) => {
    if (child.isNamed) return;
    if (child.type === ":") {
      // ${x:offset:length}: both are arithmetic.
      const rest = children.slice(i + 1).filter((c) => c.isNamed);
      if (!rest.every((c) => integer.test(c.text))) throw opaque("a substring offset that is not a number (${x:offset})", node);
    }
    if (child.type === "@" && !harmlessTransforms.has(children[i + 1]?.type ?? "")) throw opaque("a ${x@…} transformation that evaluates the value", node);
  });
}

function subscript(node: Node): void {
  const open = node.text.indexOf("[");
  const index = node.text.slice(open + 1, node.text.lastIndexOf("]"));
  if (!/^(\d+|@|\*)$/.test(index)) throw opaque("an array subscript that is not a number (a[i], a[$x])", node);
}

function arrayLiteral(node: Node): void {
  for (const element of node.namedChildren) {
    if (element.text.startsWith("[") && !/^\[\d+\]\+?=/.test(element.text)) throw opaque("an array element with a subscript that is not a number ([i]=…)", node);
  }
}

const computedTypes = new Set(["simple_expansion", "expansion", "command_substitution", "arithmetic_expansion", "process_substitution"]);

function hasComputed(node: Node): boolean {
  return computedTypes.has(node.type) || node.namedChildren.some(hasComputed);
}

/**
 * `[ … ]` is the test builtin: its words are split after expansion, so `[ -f $x ]` with
 * x='a -o -v a[$(cmd)]' becomes a -v test. Expansions are fine only quoted, as the operand of a
 * one-, two- or three-word test.
 */
function singleBracket(node: Node): void {
  if (!hasComputed(node)) return;
  let expression = node.namedChildren[0];
  while (expression?.type === "unary_expression" && expression.children[0]?.type === "!") expression = expression.namedChildren[0];
  const quotedOrFixed = (n: Node): boolean => n.type === "string" || !hasComputed(n);
  const operands = expression?.namedChildren.filter((c) => c.type !== "test_operator") ?? [];
  const plain =
    node.namedChildren.length === 1 && expression !== undefined &&
    ((expression.type === "string") ||
      (expression.type === "unary_expression" && operands.length === 1 && operands.every(quotedOrFixed)) ||
      (expression.type === "binary_expression" && operands.length === 2 && operands.every(quotedOrFixed)));
  if (!plain) throw opaque("a [ … ] test with unquoted expansions, which word splitting can turn into a -v test", node);
}

function testCommand(node: Node): void {
  const doubleBracket = node.children[0]?.type === "[[";
  if (!doubleBracket) singleBracket(node);
  const visit = (n: Node): void => {
    const operator = n.children.find((c) => c.type === "test_operator")?.text;
    if (n.type === "binary_expression" && doubleBracket && operator !== undefined && arithmeticTests.has(operator)) {
      const operands = n.namedChildren.filter((c) => c.type !== "test_operator");
      if (!operands.every((c) => integer.test(c.text))) throw opaque(`[[ … ${operator} … ]] on something other than numbers, which bash evaluates as arithmetic`, node);
    }
    if (n.type === "unary_expression" && (operator === "-v" || operator === "-R")) {
      const operand = n.namedChildren.find((c) => c.type !== "test_operator");
      if (operand === undefined || !plainName.test(operand.text)) throw opaque(`a ${operator} test of something other than a plain variable name`, node);
    }
    for (const child of n.namedChildren) visit(child);
  };
  visit(node);
}
