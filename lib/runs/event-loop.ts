/** A turn of the event loop for other requests, between the pieces of a long piece of database work. */
export function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}
