/** The AppError a call throws, for tests that read what a refusal says; fails when it throws nothing. */
import { AppError } from "@/lib/errors";

export function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("not refused");
}
