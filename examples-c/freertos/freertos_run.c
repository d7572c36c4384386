/* See freertos_run.h. */
#include "freertos_run.h"

#include <stdio.h>

static TaskHandle_t app_task;
static volatile int app_status = 1;

int freertos_run(TaskFunction_t fn, const char *name, uint32_t stack_words)
{
    if (xTaskCreate(fn, name, stack_words, NULL, tskIDLE_PRIORITY + 1, &app_task) != pdPASS) {
        fprintf(stderr, "%s: cannot create the task\n", name);
        return 1;
    }
    vTaskStartScheduler();
    /* Back here after freertos_finish() (or when the scheduler could not
     * start): the task's thread still waits inside vTaskEndScheduler(). */
    vTaskDelete(app_task);
    return app_status;
}

void freertos_finish(int status)
{
    app_status = status;
    vTaskEndScheduler();
    /* Not reached on the POSIX port: it parks this thread inside
     * vTaskEndScheduler() until freertos_run() deletes the task. */
    for (;;) {
    }
}
