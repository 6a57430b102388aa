import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { ruby } from "./ruby.js";

const source = `require "json"

module Web
  # Serves requests.
  class Server < Base
    attr_reader :port

    def initialize(port = 8080)
      @port = port
    end

    def self.create(**options)
      new(options[:port])
    end

    def start
      handler = lambda { |req| req }
      [1].each do |x|
        def not_listed; end
      end
    end

    class << self
      def instance; end
    end

    private

    def log(message) = puts(message)
  end

  module Helpers
    def helper; end
  end
end

def top_level(a, b)
  a + b
end

Point = Struct.new(:x, :y) do
  def dist; end
end
`;

describe("Ruby outline", () => {
  it("lists modules, classes, singleton classes and methods; defs inside blocks are left out", async () => {
    const { entries } = await outlineSource(source, ruby);
    expect(formatOutline("server.rb", entries).split("\n").slice(1)).toEqual([
      "   3│ module Web",
      "   5│   class Server < Base",
      "   8│     def initialize(port = 8080)",
      "  12│     def self.create(**options)",
      "  16│     def start",
      "  23│     class << self",
      "  24│       def instance",
      "  29│     def log(message) = puts(message)",
      "  32│   module Helpers",
      "  33│     def helper",
      "  37│ def top_level(a, b)",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("not_listed");
    expect(entries.map((e) => e.name)).not.toContain("dist");
  });
});
