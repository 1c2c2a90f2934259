'use server';

import { ZSetStageGrantInput } from '@/lib/services/set-stage-grant';
import { setStageGrant } from '@/lib/services/set-stage-grant';
import { serviceAction } from '../safe-action';

export const setStageGrantAction = serviceAction({ input: ZSetStageGrantInput.omit({ requestId: true }), run: setStageGrant, revalidate: ['/', 'layout'] });
