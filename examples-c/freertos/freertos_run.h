/*
 * Runs one task under the FreeRTOS scheduler (POSIX simulator port) and ends
 * the program cleanly when it is done: the task hands its exit status to
 * freertos_finish(), which stops the scheduler (vTaskEndScheduler); back in
 * main(), freertos_run() deletes the task (the port cancels and joins its
 * thread, freeing what the kernel allocated for it) and returns the status.
 * No exit() from inside a task, so the process ends with every FreeRTOS
 * thread gone and LeakSanitizer has nothing to report.
 */
#ifndef GREENHOUSE_FREERTOS_RUN_H
#define GREENHOUSE_FREERTOS_RUN_H

#include <stdint.h>

#include "FreeRTOS.h"
#include "task.h"

/* Creates `fn` as the only application task and runs the scheduler until
 * that task calls freertos_finish(). Returns the task's status, or 1 when the
 * task cannot be created or the scheduler cannot start. Call from main(). */
int freertos_run(TaskFunction_t fn, const char *name, uint32_t stack_words);

/* Ends the program with `status`: stops the scheduler. Call only from the
 * task freertos_run() started; does not return. */
void freertos_finish(int status) __attribute__((noreturn));

#endif /* GREENHOUSE_FREERTOS_RUN_H */
