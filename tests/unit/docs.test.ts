/** The published documentation must say what the code does. */

import fs from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import {
  DOCUMENT_KEYS,
  HardwareSchema,
  ResultPointSchema,
  SpeculativeSchema,
  WorkloadSchema,
} from "@/lib/document/schema";
import { ENV_VARIABLES } from "@/lib/env";
import { schemaDocText } from "@/scripts/write-schema";

const root = path.join(__dirname, "..", "..");
const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8");

describe("docs", () => {
  it("docs/servebench-v1.schema.json is the schema the code publishes (npm run schema regenerates it)", () => {
    expect(read("docs/servebench-v1.schema.json")).toBe(schemaDocText());
  });

  it("docs/run-format.md documents every field of the document", () => {
    const text = read("docs/run-format.md");
    const nested = [HardwareSchema, WorkloadSchema, SpeculativeSchema].flatMap((schema) => Object.keys(schema.shape));
    const pointKeys = Object.keys(ResultPointSchema.shape).filter(
      (key) => !/_(ttft|tpot|itl|e2el|e2el_per_token)_ms$/.test(key),
    );
    const missing = [...DOCUMENT_KEYS, ...nested, ...pointKeys].filter((key) => !text.includes(`\`${key}\``));
    expect(missing).toEqual([]);
    for (const metric of ["ttft", "tpot", "itl", "e2el", "e2el_per_token"]) {
      expect(text).toContain(`{mean,median,std,p90,p95,p99}_${metric}_ms`);
    }
  });

  it("README shows the two commands of a fresh clone", () => {
    const readme = read("README.md");
    expect(readme).toContain("npm install && npm start");
    expect(readme).toContain("npm install && npm test");
  });
});

describe("the environment variables", () => {
  it("are each documented in the README and in docs/deploy.md", () => {
    const readme = read("README.md");
    const deploy = read("docs/deploy.md");
    const missing = ENV_VARIABLES.filter(
      (name) => !readme.includes(`| \`${name}\` |`) || !deploy.includes(`| \`${name}\` |`),
    );
    expect(missing).toEqual([]);
  });
});
