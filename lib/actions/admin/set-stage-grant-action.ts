'use server';

import { ZSetStageGrantInput, setStageGrant } from '@/lib/services/stages';
import { serviceAction } from '../safe-action';

export const setStageGrantAction = serviceAction({ input: ZSetStageGrantInput.omit({ requestId: true }), run: setStageGrant, revalidate: ['/', 'layout'] });
