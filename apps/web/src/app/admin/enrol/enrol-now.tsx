'use client'

import { TwoStepSetup } from '../_components/two-step-setup'

/** The enrolment, then on to the console (loaded afresh: the session may now do everything its role allows). */
export function EnrolNow() {
  return <TwoStepSetup onDone={() => window.location.assign('/admin')} doneLabel="I have saved them: continue to the console" />
}
