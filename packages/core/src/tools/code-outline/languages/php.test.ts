import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { php } from "./php.js";

const source = String.raw`<?php

declare(strict_types=1);

namespace App\Http;

use Psr\Log\LoggerInterface;

interface Handler
{
    public function handle(Request $request): Response;
}

trait Loggable
{
    protected function log(string $message): void {}
}

#[Attribute]
final class Server extends Base implements Handler
{
    use Loggable;

    public function __construct(private int $port = 8080)
    {
    }

    public static function create(): static
    {
        $fn = function () {};
        $arrow = fn($x) => $x;
        return new static();
    }

    public function handle(Request $request): Response
    {
        $anon = new class {
            public function hidden() {}
        };
    }
}

enum Status: string
{
    case Active = 'active';
    public function label(): string { return ucfirst($this->value); }
}

function helper(array $items): int
{
    return count($items);
}

$boot = function () {
    function booted() {}
};
`;

describe("PHP outline", () => {
  it("lists namespaces, interfaces, traits, classes, enums with their methods, and functions", async () => {
    const { entries } = await outlineSource(source, php);
    expect(formatOutline("Server.php", entries).split("\n").slice(1)).toEqual([
      String.raw`   5│ namespace App\Http`,
      "   9│ interface Handler",
      "  11│   public function handle(Request $request): Response",
      "  14│ trait Loggable",
      "  16│   protected function log(string $message): void",
      "  20│ final class Server extends Base implements Handler",
      "  24│   public function __construct(private int $port = 8080)",
      "  28│   public static function create(): static",
      "  35│   public function handle(Request $request): Response",
      "  43│ enum Status: string",
      "  46│   public function label(): string",
      "  49│ function helper(array $items): int",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("hidden");
    expect(entries.map((e) => e.name)).not.toContain("booted");
  });
});
