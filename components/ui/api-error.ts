/** The error body of the API as the browser shows it. */
export interface ApiErrorView {
  status: number | null;
  code: string;
  message: string;
  issues: { path: string; message: string }[];
}

export async function readApiError(response: Response | null): Promise<ApiErrorView> {
  if (!response) {
    return { status: null, code: "network_error", message: "The server could not be reached.", issues: [] };
  }
  try {
    const body = (await response.json()) as {
      error?: { code?: string; message?: string; issues?: { path: string; message: string }[] };
    };
    return {
      status: response.status,
      code: body.error?.code ?? "unknown",
      message: body.error?.message ?? `The server answered ${response.status}.`,
      issues: Array.isArray(body.error?.issues) ? body.error.issues : [],
    };
  } catch {
    return { status: response.status, code: "unknown", message: `The server answered ${response.status}.`, issues: [] };
  }
}
