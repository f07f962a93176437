import { NextResponse } from "next/server";
import { apiRoute, methodsNotAllowed } from "@/lib/http/route";
import { listDeliveries, sweepDeliveries } from "@/lib/webhooks/deliveries";
import { redactWebhookUrl } from "@/lib/webhooks/payload";

export const dynamic = "force-dynamic";

/** The webhook delivery log, newest first. URLs are shown without their path: Slack's carry the secret there. */
export const GET = apiRoute(async () => {
  void sweepDeliveries();
  const deliveries = await listDeliveries(100);
  return NextResponse.json({
    deliveries: deliveries.map((delivery) => ({ ...delivery, url: redactWebhookUrl(delivery.url) })),
  });
});

// The methods this address does not take: 405 with a body that says which it does.
export const { POST, PUT, PATCH, DELETE } = methodsNotAllowed(["GET"]);
