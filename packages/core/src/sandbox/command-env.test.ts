import { describe, expect, it } from "vitest";
import { isSecretVariable, sandboxedEnv } from "./command-env.js";

const base = {
  PATH: "/usr/bin",
  HOME: "/home/p",
  LANG: "C.UTF-8",
  TERM: "dumb",
  TMPDIR: "/tmp",
  GITHUB_TOKEN: "ghp_x",
  AWS_SECRET_ACCESS_KEY: "aws",
  AWS_ACCESS_KEY_ID: "id",
  NPM_TOKEN: "npm",
  HF_TOKEN: "hf",
  GEMINI_API_KEY: "g",
  db_password: "pw",
  MYSQL_PWD_PASSWD: "pw",
  GOOGLE_APPLICATION_CREDENTIALS: "/x.json",
  CAIRN_REDIS_URL: "redis://:pw@host:6379",
  CAIRN_BASE_URL: "https://u:p@proxy",
  CAIRN_SANDBOX: "workspace-write",
  SSH_AUTH_SOCK: "/run/user/1000/ssh",
  DBUS_SESSION_BUS_ADDRESS: "unix:path=/run/user/1000/bus",
  GPG_AGENT_INFO: "/run/user/1000/gnupg",
};

describe("sandboxedEnv", () => {
  it("drops every variable named like a secret, Cairn's endpoints and the agents' sockets from a model's command; keeps the rest", () => {
    const env = sandboxedEnv(base, { dropSecrets: true, passEnv: [] });
    expect(Object.keys(env).sort()).toEqual(["CAIRN_SANDBOX", "HOME", "LANG", "PATH", "TERM", "TMPDIR"]);
  });

  it("passes the person's named variables and prefixes through", () => {
    const env = sandboxedEnv(base, { dropSecrets: true, passEnv: ["GITHUB_TOKEN", "AWS_*", "SSH_AUTH_SOCK"] });
    expect(env.GITHUB_TOKEN).toBe("ghp_x");
    expect(env.AWS_SECRET_ACCESS_KEY).toBe("aws");
    expect(env.AWS_ACCESS_KEY_ID).toBe("id");
    expect(env.SSH_AUTH_SOCK).toBe("/run/user/1000/ssh");
    expect(env.NPM_TOKEN).toBeUndefined();
  });

  it("keeps an MCP server's configured token (no dropSecrets) but still not the agents' sockets", () => {
    const env = sandboxedEnv(base, { dropSecrets: false, passEnv: [] });
    expect(env.GITHUB_TOKEN).toBe("ghp_x");
    expect(env.SSH_AUTH_SOCK).toBeUndefined();
    expect(env.DBUS_SESSION_BUS_ADDRESS).toBeUndefined();
  });

  it("matches names case-insensitively", () => {
    for (const name of ["api_key", "Secret", "x_token_y", "PgPassword", "CREDENTIALS_FILE"]) expect(isSecretVariable(name), name).toBe(true);
    for (const name of ["PATH", "HOME", "LANG", "TERM", "EDITOR", "NODE_OPTIONS", "CAIRN_HOME"]) expect(isSecretVariable(name), name).toBe(false);
  });
});
