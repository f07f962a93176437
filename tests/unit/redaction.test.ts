/**
 * Credentials never stored, beyond secret flags and variables: the password of a URL anywhere in a command, a
 * flag's value or a variable's, and the credentials of headers (`-H "Authorization: Bearer …"`, `--header
 * Authorization=…`, JSON headers). The command, the flags parsed from it and a second normalization agree.
 */
import { describe, expect, it, test } from "vitest";
import { REDACTED, redactCommand, redactHeaderLine, redactUrlPasswords, redactValues } from "@/lib/document/flags";
import { normalizeRunDocument } from "@/lib/document/normalize";

function normalized(fields: Record<string, unknown>) {
  return normalizeRunDocument({
    format: "servebench/v1",
    engine: "vllm",
    model: "m",
    results: [{ concurrency: 1 }],
    ...fields,
  });
}

describe("URL passwords", () => {
  test.each([
    ["https://user:pass@host/models/m", `https://user:${REDACTED}@host/models/m`],
    ["postgresql://app:s3cr%40t@db:5432/x?ssl=1", `postgresql://app:${REDACTED}@db:5432/x?ssl=1`],
    ["redis://:only-password@cache:6379", `redis://:${REDACTED}@cache:6379`],
    ["https://user:p@ss@host/a", `https://user:${REDACTED}@host/a`],
    ["s3://bucket/path@v2", "s3://bucket/path@v2"],
    ["https://user@host/a", "https://user@host/a"],
    ["https://host:8443/a?u=x:y@z", "https://host:8443/a?u=x:y@z"],
    ["a https://u:one@h1/ and ftp://v:two@h2 end", `a https://u:${REDACTED}@h1/ and ftp://v:${REDACTED}@h2 end`],
  ])("%s", (text, expected) => {
    expect(redactUrlPasswords(text)).toBe(expected);
    expect(redactUrlPasswords(expected)).toBe(expected);
  });

  it("in the command, the flags parsed from it, env values and the CI link", () => {
    const doc = normalized({
      command:
        "DATABASE_URL=postgresql://app:pw1@db/x vllm serve m --load-format s3 --model-loader-url 'https://u:pw2@hub.example/m'",
      env: { PROXY: "http://proxy-user:pw3@proxy:3128" },
      flags: { "--mirror": ["https://a:pw4@m1/", "https://m2/"] },
      ci_url: "https://ci-bot:pw5@ci.example.com/jobs/7",
    });
    expect(JSON.stringify(doc)).not.toMatch(/pw[1-5]/);
    expect(doc.command).toBe(
      `DATABASE_URL=postgresql://app:${REDACTED}@db/x vllm serve m --load-format s3 --model-loader-url 'https://u:${REDACTED}@hub.example/m'`,
    );
    expect(doc.env).toEqual({
      DATABASE_URL: `postgresql://app:${REDACTED}@db/x`,
      PROXY: `http://proxy-user:${REDACTED}@proxy:3128`,
    });
    expect(doc.flags["--model-loader-url"]).toBe(`https://u:${REDACTED}@hub.example/m`);
    expect(doc.flags["--mirror"]).toEqual([`https://a:${REDACTED}@m1/`, "https://m2/"]);
    expect(doc.ci_url).toBe(`https://ci-bot:${REDACTED}@ci.example.com/jobs/7`);
    expect(normalizeRunDocument(doc)).toEqual(doc);
  });
});

describe("header credentials", () => {
  test.each<[string, string, Record<string, unknown>]>([
    [
      `vllm serve m --header "Authorization: Bearer sk-live-1" --tp 8`,
      `vllm serve m --header "Authorization: Bearer ${REDACTED}" --tp 8`,
      { "--header": `Authorization: Bearer ${REDACTED}` },
    ],
    [
      `vllm serve m -H 'Authorization: Bearer sk-live-1 extra' --tp 8`,
      `vllm serve m -H 'Authorization: Bearer ${REDACTED}' --tp 8`,
      { "-H": `Authorization: Bearer ${REDACTED}` },
    ],
    [
      "vllm serve m -H Authorization: Bearer sk-live-1 --tp 8",
      `vllm serve m -H Authorization: Bearer ${REDACTED} --tp 8`,
      { "-H": ["Authorization:", "Bearer", REDACTED] },
    ],
    [
      "vllm serve m --header Authorization=sk-live-1 --tp 8",
      `vllm serve m --header Authorization=${REDACTED} --tp 8`,
      { "--header": `Authorization=${REDACTED}` },
    ],
    [
      `vllm serve m --header="Proxy-Authorization: Basic dXNlcjpwYXNz" --tp 8`,
      `vllm serve m --header="Proxy-Authorization: Basic ${REDACTED}" --tp 8`,
      { "--header": `Proxy-Authorization: Basic ${REDACTED}` },
    ],
    [
      `vllm serve m -H "X-Api-Key: sk-live-1" -H "Cookie: session=abc" --tp 8`,
      `vllm serve m -H "X-Api-Key: ${REDACTED}" -H "Cookie: ${REDACTED}" --tp 8`,
      { "-H": [`X-Api-Key: ${REDACTED}`, `Cookie: ${REDACTED}`] },
    ],
    [
      `vllm serve m --headers '{"Authorization": "Bearer sk-live-1", "Accept": "json"}' --tp 8`,
      `vllm serve m --headers '{"Authorization": "Bearer ${REDACTED}", "Accept": "json"}' --tp 8`,
      { "--headers": `{"Authorization": "Bearer ${REDACTED}", "Accept": "json"}` },
    ],
  ])("%s", (command, redacted, flags) => {
    expect(redactCommand(command)).toBe(redacted);
    expect(redactCommand(redacted)).toBe(redacted);
    const doc = normalized({ command });
    expect(doc.command).toBe(redacted);
    expect(doc.flags).toMatchObject({ ...flags, "--tp": "8" });
    expect(JSON.stringify(doc)).not.toContain("sk-live-1");
    expect(normalizeRunDocument(doc)).toEqual(doc);
  });

  it("flags given as an object are redacted the same way", () => {
    const doc = normalized({
      flags: { "--header": "authorization: token ghp_abc", "-H": ["Accept: x", "Cookie: a=b"] },
    });
    expect(doc.flags).toEqual({
      "--header": `authorization: token ${REDACTED}`,
      "-H": ["Accept: x", `Cookie: ${REDACTED}`],
    });
  });

  test.each([
    ["Authorization: Bearer abc", `Authorization: Bearer ${REDACTED}`],
    ["Authorization:abc", `Authorization:${REDACTED}`],
    ["  authorization = abc", `  authorization = ${REDACTED}`],
    ["Authorization: Bearer", `Authorization: ${REDACTED}`],
    ["Authorization:", "Authorization:"],
    ["Accept: application/json", "Accept: application/json"],
    ["X-Auth-Token: t", `X-Auth-Token: ${REDACTED}`],
    ["HF_TOKEN=abc", "HF_TOKEN=abc"],
  ])("one header written as a value: %j", (value, expected) => {
    expect(redactHeaderLine(value)).toBe(expected);
  });

  it("a header split into words by the shell keeps its scheme and loses its credential", () => {
    expect(redactValues(["Authorization:", "Bearer", "abc"])).toEqual(["Authorization:", "Bearer", REDACTED]);
    expect(redactValues(["Authorization:", "abc"])).toEqual(["Authorization:", REDACTED]);
    expect(redactValues(["Accept:", "json"])).toEqual(["Accept:", "json"]);
  });

  it("leaves commands without credentials as they are", () => {
    const command =
      "vllm serve m --host 0.0.0.0 --port 8000 --download-dir https://mirror/models --chat-template 'role: user' -H 'Accept: json'";
    expect(redactCommand(command)).toBe(command);
  });

  it("stays linear on hostile commands", () => {
    const headers = `-H ${"Authorization: ".repeat(20_000)}`;
    const urls = `${"a://b".repeat(20_000)}@`;
    const quotes = `${'"Authorization: '.repeat(10_000)}`;
    // Linear work on these 300,000-character commands is milliseconds even on a loaded machine; a quadratic
    // scan of them is ~10^11 steps, minutes. The bound sits between the two, hundreds of times above the work.
    const started = performance.now();
    for (const command of [headers, urls, quotes]) redactCommand(command);
    expect(performance.now() - started).toBeLessThan(30_000);
  });
});
