import { describe, expect, it } from "vitest";
import { formatOutline } from "../format.js";
import { outlineSource } from "../outline.js";
import { cpp } from "./cpp.js";

const source = `#include <string>

namespace net {

class Server : public Base {
public:
    explicit Server(int port);
    ~Server() override;
    void start();
    int port() const { return port_; }
    const std::string& name() const;
    bool operator==(const Server& other) const;
    void (*callback)(int);

private:
    int port_;
};

struct Config {
    int port = 80;
    bool valid() const;
};

enum class Level { Debug, Info };

template <typename T>
class Box {
    T value;
};

using Handler = std::function<void(int)>;

Server::Server(int port) : port_(port) {}

void Server::start() {
    auto cb = [](int x) { return x; };
}

std::string describe(const Config& c) {
    struct Local { int y; };
    return "";
}

}  // namespace net

extern "C" int c_entry(void);

int main() { return 0; }
`;

describe("C++ outline", () => {
  it("lists namespaces, classes with their member declarations, structs, enums, templates, aliases and functions", async () => {
    const { entries } = await outlineSource(source, cpp);
    expect(formatOutline("server.cpp", entries).split("\n").slice(1)).toEqual([
      "   3│ namespace net",
      "   5│   class Server : public Base",
      "   7│     explicit Server(int port)",
      "   8│     ~Server() override",
      "   9│     void start()",
      "  10│     int port() const",
      "  11│     const std::string& name() const",
      "  12│     bool operator==(const Server& other) const",
      "  19│   struct Config",
      "  21│     bool valid() const",
      "  24│   enum class Level",
      "  27│   class Box",
      "  31│   using Handler = std::function<void(int)>",
      "  33│   Server::Server(int port) : port_(port)",
      "  35│   void Server::start()",
      "  39│   std::string describe(const Config& c)",
      "  46│ extern \"C\" int c_entry(void)",
      "  48│ int main()",
    ]);
    expect(entries.map((e) => e.name)).not.toContain("Local");
    expect(entries.map((e) => e.name)).not.toContain("callback"); // a function-pointer field is data
    expect(entries.find((e) => e.name === "start")?.kind).toBe("method");
  });
});
