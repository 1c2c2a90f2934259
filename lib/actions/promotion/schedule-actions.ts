'use server';

import { scheduleWhenRule, ZCancelScheduledPromotion, ZSchedulePromotion } from '@/lib/validation/scheduled-promotions';
import { cancelScheduledPromotion, schedulePromotion } from '@/lib/services/promotion';
import { serviceAction } from '../safe-action';

/**
 * Issue 29: the promote dialog's "later" — schedule a promotion at a time (UTC) or for when the stage's
 * freeze ends — and the Requests page's cancel. Parsed once here (the schema the API body is derived
 * from); the service authorizes (promote on the stage; cancel: the scheduler or a manager) and stores
 * the schedule with its audit event in one transaction.
 */
export const schedulePromotionAction = serviceAction({ input: ZSchedulePromotion.omit({ requestId: true }).superRefine(scheduleWhenRule), run: schedulePromotion, revalidate: ['/', 'layout'] });

export const cancelScheduledPromotionAction = serviceAction({ input: ZCancelScheduledPromotion.omit({ requestId: true }), run: cancelScheduledPromotion, revalidate: ['/', 'layout'] });
