/**
 * The worker thread's entry: one task at a time, answered with its id. Started by lib/ingest/upload-pool.ts;
 * it never touches the database.
 */
import { getHeapStatistics } from "node:v8";
import { parentPort } from "node:worker_threads";
import { performUploadTask, type UploadTask } from "./upload-task";

const port = parentPort;
if (!port) throw new Error("lib/ingest/upload-worker.ts runs as a worker thread only");

port.on("message", (message: { id: number; task: UploadTask }) => {
  void performUploadTask(message.task).then((outcome) =>
    // This thread's own heap as V8 holds it after the task: the pool replaces a worker a big task left large.
    port.postMessage({ id: message.id, outcome, heapBytes: getHeapStatistics().total_heap_size }),
  );
});
