#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static volatile double started; static volatile int cpu_child;
static void *fn(void *a){(void)a;started=now();cpu_child=sched_getcpu();return NULL;}
static pthread_mutex_t mu=PTHREAD_MUTEX_INITIALIZER; static pthread_cond_t cv=PTHREAD_COND_INITIALIZER;
static int go=0, quit=0; static volatile double woke; static volatile int cpu_pool;
static void *pool(void *a){(void)a;pthread_mutex_lock(&mu);for(;;){while(!go&&!quit)pthread_cond_wait(&cv,&mu);if(quit)break;go=0;woke=now();cpu_pool=sched_getcpu();}pthread_mutex_unlock(&mu);return NULL;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
static void busy(double s){double t=now();while(now()-t<s);}
int main(int argc,char**argv){int sleepms=atoi(argv[1]);enum{N=40};double d1[N],d2[N];int same1=0,same2=0;
 pthread_t p;pthread_create(&p,NULL,pool,NULL);
 for(int i=0;i<N;i++){struct timespec s={0,sleepms*1000000L};
  if(sleepms)nanosleep(&s,NULL); busy(2e-4);
  started=0;double t0=now();pthread_t th;pthread_create(&th,NULL,fn,NULL);int me=sched_getcpu();busy(3e-3);d1[i]=started?started-t0:1;same1+=cpu_child==me;pthread_join(th,NULL);
  if(sleepms)nanosleep(&s,NULL); busy(2e-4);
  woke=0;t0=now();pthread_mutex_lock(&mu);go=1;pthread_cond_signal(&cv);pthread_mutex_unlock(&mu);me=sched_getcpu();busy(3e-3);
  d2[i]=woke?woke-t0:1;same2+=cpu_pool==me;}
 qsort(d1,N,8,cmp);qsort(d2,N,8,cmp);
 printf("sleep %d ms, parent busy: create->run median %.0f us p10 %.0f p90 %.0f same cpu %d/%d | pool wake median %.0f us p10 %.0f p90 %.0f same cpu %d/%d\n",sleepms,d1[N/2]*1e6,d1[N/10]*1e6,d1[9*N/10]*1e6,same1,N,d2[N/2]*1e6,d2[N/10]*1e6,d2[9*N/10]*1e6,same2,N);
 quit=1;pthread_cond_signal(&cv);return 0;}
