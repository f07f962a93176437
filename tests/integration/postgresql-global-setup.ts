/**
 * For the integration suite on PostgreSQL: one private cluster for the whole run (tests/support/postgresql.ts);
 * each test file then makes a database of its own in it (setup.ts), as each makes its own SQLite file on SQLite.
 */
import type { TestProject } from "vitest/node";
import { type Cluster, findPostgresBin, startCluster } from "../support/postgresql";

declare module "vitest" {
  export interface ProvidedContext {
    postgresqlClusterUrl: string;
  }
}

let cluster: Cluster | undefined;

export async function setup(project: TestProject): Promise<void> {
  if (!findPostgresBin()) {
    throw new Error(
      "The PostgreSQL suite must run here (CI is set) but PostgreSQL is not installed: `apt-get install -y postgresql` (.ci/run does)",
    );
  }
  cluster = await startCluster();
  project.provide("postgresqlClusterUrl", cluster.urlFor("postgres"));
}

export async function teardown(): Promise<void> {
  cluster?.stop();
}
