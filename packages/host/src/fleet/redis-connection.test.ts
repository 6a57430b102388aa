import { describe, expect, it } from "vitest";
import { redisUrl, shownRedisUrl, withoutPassword } from "./redis-connection.js";

describe("redisUrl", () => {
  it("takes a local Redis without a password, and any Redis with one", () => {
    for (const url of ["redis://127.0.0.1:6379", "redis://localhost", "redis://[::1]:6379", "/run/redis.sock", "redis://:pw@10.0.0.5:6379", "rediss://user:pw@queue.internal:6380/2", "redis://queue.internal?password=pw"]) {
      expect(redisUrl({ CAIRN_REDIS_URL: url }), url).toBe(url);
    }
    expect(redisUrl({})).toBe("redis://127.0.0.1:6379");
  });

  it("refuses a Redis on another machine without a password, in one line that says both ways out, unless allowed", () => {
    for (const url of ["redis://10.0.0.5:6379", "rediss://queue.internal", "redis://user@queue.internal"]) {
      expect(() => redisUrl({ CAIRN_REDIS_URL: url }), url).toThrow(/^Redis at \S+ is on another machine .*password in the URL.*CAIRN_FLEET_ALLOW_OPEN_REDIS=1[^\n]*$/);
      expect(redisUrl({ CAIRN_REDIS_URL: url, CAIRN_FLEET_ALLOW_OPEN_REDIS: "1" })).toBe(url);
    }
  });

  it("refuses what is not a Redis URL, without showing a password", () => {
    expect(() => redisUrl({ CAIRN_REDIS_URL: "http://:hunter2@h" })).toThrow(/must start with redis:\/\//);
    expect(() => redisUrl({ CAIRN_REDIS_URL: "http://:hunter2@h" })).not.toThrow(/hunter2/);
  });
});

describe("shownRedisUrl and withoutPassword", () => {
  it("never show the password, however it is given", () => {
    expect(shownRedisUrl("redis://:hunter2@h:1")).toBe("redis://:***@h:1");
    expect(shownRedisUrl("rediss://bob:hunter2@h:1/0")).toBe("rediss://***:***@h:1/0");
    expect(shownRedisUrl("redis://h?password=hunter2")).toBe("redis://h?***");
    expect(shownRedisUrl("not a url //u:hunter2@h")).not.toContain("hunter2");
    expect(withoutPassword("auth hunter2 and hunter%21 failed", "redis://:hunter%21@h")).toBe("auth hunter2 and *** failed");
    expect(withoutPassword("auth hunter! failed", "redis://:hunter%21@h")).toBe("auth *** failed");
  });
});
