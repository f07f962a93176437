/**
 * The worker thread's entry: one task at a time, answered with its id. Started by lib/ingest/upload-pool.ts;
 * it never touches the database.
 */
import { parentPort } from "node:worker_threads";
import { performUploadTask, type UploadTask } from "./upload-task";

const port = parentPort;
if (!port) throw new Error("lib/ingest/upload-worker.ts runs as a worker thread only");

port.on("message", (message: { id: number; task: UploadTask }) => {
  void performUploadTask(message.task).then((outcome) => port.postMessage({ id: message.id, outcome }));
});
