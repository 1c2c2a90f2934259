import { NextResponse } from 'next/server';
import { publicRoute } from '@/lib/api/route';
import { openApiRoute } from '@/lib/api/contracts/console';
import { openApiDocument } from '@/lib/api/openapi';

/** Public: the API's description is no secret, and tools fetch it before they have a token. */
export const GET = publicRoute(openApiRoute, async () => NextResponse.json(openApiDocument()));
