import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { rust } from "./rust.js";

const source = `use std::fmt;

/// A key-value store.
#[derive(Debug, Clone)]
pub struct Store<K, V> {
    items: Vec<(K, V)>,
}

pub struct Meters(pub f64);

pub enum Event {
    Started,
    Stopped(u32),
}

pub trait Handler: Send {
    fn handle(&self, event: &Event) -> bool;
    fn name(&self) -> &str { "handler" }
}

impl<K: Clone, V> Store<K, V> {
    pub fn new() -> Self {
        fn helper() {}
        let f = |x: i32| x + 1;
        Store { items: Vec::new() }
    }

    pub async fn len(&self) -> usize { self.items.len() }
}

impl fmt::Display for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "event")
    }
}

pub type Result<T> = std::result::Result<T, Error>;

pub mod util {
    pub fn helper() {}
}

mod tests;

macro_rules! log {
    ($msg:expr) => { println!("{}", $msg) };
}

pub fn run(config: &Config) -> Result<()> {
    Ok(())
}

union Bits { i: u32, f: f32 }
const MAX: usize = 10;
`;

describe("Rust outline", () => {
  it("lists structs, enums, traits, impls with their functions, modules, type aliases, macros and functions", async () => {
    const { entries } = await outlineSource(source, rust);
    expect(formatOutline("lib.rs", entries).split("\n").slice(1)).toEqual([
      "   5│ pub struct Store<K, V>",
      "   9│ pub struct Meters(pub f64)",
      "  11│ pub enum Event",
      "  16│ pub trait Handler: Send",
      "  17│   fn handle(&self, event: &Event) -> bool",
      "  18│   fn name(&self) -> &str",
      "  21│ impl<K: Clone, V> Store<K, V>",
      "  22│   pub fn new() -> Self",
      "  28│   pub async fn len(&self) -> usize",
      "  31│ impl fmt::Display for Event",
      "  32│   fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result",
      "  37│ pub type Result<T> = std::result::Result<T, Error>",
      "  39│ pub mod util",
      "  40│   pub fn helper()",
      "  43│ mod tests",
      "  45│ macro_rules! log",
      "  49│ pub fn run(config: &Config) -> Result<()>",
      "  53│ union Bits",
    ]);
    // the helper inside new() is local; util::helper is the only one listed
    expect(entries.filter((e) => e.name === "helper").map((e) => e.line)).toEqual([40]);
    expect(entries.find((e) => e.name === "new")?.kind).toBe("method");
  });
});
