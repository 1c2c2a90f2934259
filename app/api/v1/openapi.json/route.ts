import { NextResponse } from 'next/server';
import { openApiDocument } from '@/lib/api/openapi';

/** Public: the API's description is no secret, and tools fetch it before they have a token. */
export function GET() {
  return NextResponse.json(openApiDocument());
}
